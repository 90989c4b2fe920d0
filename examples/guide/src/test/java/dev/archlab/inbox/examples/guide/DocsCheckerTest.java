package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker behind GuideDocsTest, on a small repository: each kind of drift is reported. */
class DocsCheckerTest {

  @TempDir Path root;
  private DocsChecker checker;

  @BeforeEach
  void writeSourceAndTarget() throws IOException {
    Files.createDirectories(root.resolve("src"));
    Files.writeString(
        root.resolve("src/Example.java"),
        """
        class Example {
          void run() {
            // tag::run[]
            int answer = 42;
            // end::run[]
          }
        }
        """);
    Files.createDirectories(root.resolve("docs"));
    Files.writeString(root.resolve("docs/other.md"), "# Other page\n\n## The `inbox ui` page\n");
    checker = new DocsChecker(root);
  }

  @Test
  void aBlockEqualToItsRegionAndResolvingLinksPass() throws IOException {
    Path page =
        page(
            "[other](other.md#the-inbox-ui-page) [self](#guide) [src](../src/Example.java)\n",
            "int answer = 42;");

    assertThat(checker.check(page, true)).isEmpty();
  }

  @Test
  void aBlockThatDiffersFromItsRegionIsReported() throws IOException {
    Path page = page("", "int answer = 41;");

    assertThat(checker.check(page, true))
        .singleElement()
        .asString()
        .contains("differs from the source region", "guide:  int answer = 41;");
  }

  @Test
  void aMissingRegionOrSourceFileIsReported() throws IOException {
    Path noRegion = page("", "int answer = 42;");
    Files.writeString(
        noRegion, Files.readString(noRegion).replace("Example.java#run", "Example.java#walk"));
    Path noFile = root.resolve("docs/nofile.md");
    Files.writeString(noFile, Files.readString(noRegion).replace("Example.java", "Gone.java"));

    assertThat(checker.check(noRegion, true)).singleElement().asString().contains("no region");
    assertThat(checker.check(noFile, true)).singleElement().asString().contains("no such source");
  }

  @Test
  void brokenLinksToFilesAndAnchorsAreReported() throws IOException {
    Path page = page("[a](missing.md) [b](other.md#nowhere) [c](#nothing)\n", "int answer = 42;");

    List<String> problems = checker.check(page, true);

    assertThat(problems).hasSize(3);
    assertThat(problems.get(0)).contains("missing file: missing.md");
    assertThat(problems.get(1)).contains("missing anchor: other.md#nowhere");
    assertThat(problems.get(2)).contains("missing anchor: #nothing");
  }

  @Test
  void aJavaBlockWithoutAMarkerIsReportedWhereMarkersAreRequired() throws IOException {
    Path page = root.resolve("docs/guide.md");
    Files.writeString(page, "# Guide\n\n```java\nint x = 1;\n```\n");

    assertThat(checker.check(page, true)).singleElement().asString().contains("without");
    assertThat(checker.check(page, false)).isEmpty();
  }

  @Test
  void writeModeCopiesTheRegionIntoTheBlock() throws IOException {
    Path page = page("", "int answer = 0;");

    Files.writeString(page, checker.withSnippetsFromSources(page));

    assertThat(checker.check(page, true)).isEmpty();
  }

  @Test
  void slugsFollowGitHubsRules() {
    assertThat(DocsChecker.slug("Kafka (`inbox-kafka`)")).isEqualTo("kafka-inbox-kafka");
    assertThat(DocsChecker.slug("The operator page: `inbox ui`"))
        .isEqualTo("the-operator-page-inbox-ui");
    assertThat(DocsChecker.slug("Runbook: \"stuck\"")).isEqualTo("runbook-stuck");
  }

  private Path page(String links, String blockLine) throws IOException {
    Path page = root.resolve("docs/guide.md");
    Files.writeString(
        page,
        "# Guide\n\n"
            + links
            + "\n<!-- snippet: src/Example.java#run -->\n```java\n"
            + blockLine
            + "\n```\n");
    return page;
  }
}
