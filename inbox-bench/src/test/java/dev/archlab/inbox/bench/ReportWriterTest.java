package dev.archlab.inbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that regenerating the report keeps every hand-written section, once each and at its place
 * among the generated ones, so nobody has to paste them back after a run.
 */
class ReportWriterTest {

  private static final String ANALYSIS = "## What was fixed\n\nWritten by hand: the misses.";
  private static final String COALESCING = "## Coalesced claims\n\nWritten by hand: coalescing.";
  private static final String SIMULATE = "## `inbox simulate`\n\nWritten by hand: simulate.";

  @Test
  void handWrittenSectionsSurviveRegenerationInTheirPlaces(@TempDir Path docs) throws Exception {
    Path bench = docs.resolve("benchmarks");
    Files.createDirectories(bench);
    // Blank lines around the text must not change the document's spacing.
    write(docs.resolve(ReportWriter.ANALYSIS), "\n" + ANALYSIS + "\n\n");
    write(docs.resolve(ReportWriter.COALESCING), COALESCING);
    write(docs.resolve(ReportWriter.SIMULATE), SIMULATE + "\n");

    String md = Files.readString(ReportWriter.write(bench, docs), StandardCharsets.UTF_8);

    assertThat(md)
        .containsSubsequence(
            "## Targets",
            "\n\n" + ANALYSIS + "\n\n## JDBC load",
            "\n\n" + COALESCING + "\n\n## In memory",
            "## Scale",
            "\n\n" + SIMULATE + "\n")
        .endsWith("\n\n" + SIMULATE + "\n");
    assertThat(occurrences(md, "Written by hand")).isEqualTo(3);
  }

  @Test
  void aMissingHandWrittenFileLeavesOnlyItsSectionOut(@TempDir Path docs) throws Exception {
    Path bench = docs.resolve("benchmarks");
    Files.createDirectories(bench);
    write(docs.resolve(ReportWriter.COALESCING), COALESCING);

    String md = Files.readString(ReportWriter.write(bench, docs), StandardCharsets.UTF_8);

    assertThat(md).contains("\n\n" + COALESCING + "\n\n## In memory");
    assertThat(md).doesNotContain("the misses").doesNotContain("simulate.");
  }

  @Test
  void theCommittedRunRegeneratesTheCommittedDocumentWithEverySection(@TempDir Path docs)
      throws Exception {
    Path committed = Path.of("..", "docs").toAbsolutePath().normalize();
    Path bench = docs.resolve("benchmarks");
    Files.createDirectories(bench);
    try (Stream<Path> files = Files.list(committed.resolve("benchmarks"))) {
      for (Path file : files.toList()) {
        Files.copy(file, bench.resolve(file.getFileName()));
      }
    }

    String md = Files.readString(ReportWriter.write(bench, docs), StandardCharsets.UTF_8);

    // Every run's section and every hand-written one, in the document's order.
    assertThat(md)
        .containsSubsequence(
            "\n## Machine\n",
            "\n## Targets\n",
            "\n## What was fixed, and what limits the misses\n",
            "\n## JDBC load (PostgreSQL, fsync on)\n",
            "\n## Coalesced claims and completions",
            "\n## In memory (JMH)\n",
            "\n## Scale: pre-filled DONE rows\n",
            "\n## Kafka: KafkaInboxLoop against a bare at-least-once loop\n",
            "\n## RabbitMQ: RabbitInboxConsumer against a bare consumer\n",
            "| one-commit | 5 | 10000 | 13427 | 1.72× (1.52–2.28) | ≥ 0.80×: met |",
            "\n## Outbox: the relay against a bare producer\n",
            "\n## Redis: RedisInboxStore against the lease mode",
            "\n## `inbox simulate` on the embedded databases\n");
    // The committed document is exactly what its CSVs give: a section the generator stops
    // writing, or an edit made by hand, shows up here.
    assertThat(md)
        .as("docs/BENCHMARKS.md regenerated from docs/benchmarks (run `inbox-bench report`)")
        .isEqualTo(Files.readString(committed.resolve("BENCHMARKS.md"), StandardCharsets.UTF_8));
  }

  private static void write(Path file, String text) throws Exception {
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      count++;
    }
    return count;
  }
}
