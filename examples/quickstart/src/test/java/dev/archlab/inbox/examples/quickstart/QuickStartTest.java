package dev.archlab.inbox.examples.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.archlab.inbox.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuickStartTest {

  private final List<String> sent = new ArrayList<>();
  private final List<String> events = new ArrayList<>();

  private final QuickStart.Broker broker =
      new QuickStart.Broker() {
        @Override
        public void ack() {
          events.add("ack");
        }

        @Override
        public void redeliverAfter(Duration delay) {
          events.add("redeliver " + delay);
          assertTrue(delay.compareTo(Duration.ZERO) > 0, "redelivery delay " + delay);
        }
      };

  @Test
  void readmeQuickStartIsThisExampleCharacterForCharacter() throws IOException {
    // The test runs in examples/quickstart; the README is the repository's.
    String readme = Files.readString(Path.of("../../README.md"), StandardCharsets.UTF_8);
    int section = readme.indexOf("\n## Quick start\n");
    assertTrue(section >= 0, "README has no '## Quick start' section");
    int open = readme.indexOf("```java\n", section);
    int close = readme.indexOf("\n```", open + 1);
    assertTrue(open >= 0 && close > open, "README's quick start has no java block");
    String snippet = readme.substring(open + "```java\n".length(), close);

    String source =
        Files.readString(
            Path.of("src/main/java/dev/archlab/inbox/examples/quickstart/QuickStart.java"),
            StandardCharsets.UTF_8);
    int begin = source.indexOf("// tag::quickstart[]\n");
    int end = source.indexOf("// end::quickstart[]");
    assertTrue(begin >= 0 && end > begin, "QuickStart.java lost its tag::quickstart[] markers");
    String example =
        source.substring(
            begin + "// tag::quickstart[]\n".length(), source.lastIndexOf('\n', end));

    assertEquals(dedent(snippet), dedent(example));
  }

  @Test
  void firstDeliveryIsAppliedSendsOneSmsAndIsAcknowledged() {
    QuickStart quickStart =
        new QuickStart(
            (text, key) -> sent.add(new String(text, StandardCharsets.UTF_8) + " / " + key),
            (message, lastError) -> events.add("poison " + message.id()),
            broker);

    Outcome outcome =
        quickStart.deliver("order-1", "hello".getBytes(StandardCharsets.UTF_8), Map.of());

    assertEquals(Outcome.Status.APPLIED, outcome.status());
    assertEquals(1, sent.size(), sent.toString());
    assertTrue(sent.get(0).startsWith("hello / "), sent.toString());
    assertFalse(sent.get(0).endsWith(" / "), "no idempotency key: " + sent);
    assertEquals(List.of("ack"), events);
  }

  @Test
  void failingGatewayIsRedeliveredLaterAndNotAcknowledged() {
    QuickStart quickStart =
        new QuickStart(
            (text, key) -> {
              throw new IllegalStateException("gateway down");
            },
            (message, lastError) -> events.add("poison " + message.id()),
            broker);

    Outcome outcome =
        quickStart.deliver("order-2", "hello".getBytes(StandardCharsets.UTF_8), Map.of());

    assertEquals(Outcome.Status.FAILED, outcome.status());
    assertEquals(1, events.size(), events.toString());
    assertTrue(events.get(0).startsWith("redeliver "), events.toString());
  }

  @Test
  void mainDeliversOneOrderAndPrintsApplied() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      QuickStart.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(3, lines.size(), lines.toString());
    assertTrue(lines.get(0).startsWith("sms Your order 42 is confirmed (key "), lines.toString());
    assertEquals(List.of("ack", "APPLIED"), lines.subList(1, 3));
  }

  /** Removes the indentation common to all non-blank lines, so nesting depth does not count. */
  private static String dedent(String text) {
    List<String> lines = text.lines().toList();
    int common =
        lines.stream()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder result = new StringBuilder();
    for (String line : lines) {
      result.append(line.isBlank() ? "" : line.substring(common)).append('\n');
    }
    return result.toString();
  }
}
