package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README and everything under docs/ against the sources: each snippet block equals its tagged
 * region of a compiled example, each Java block of the README and the guide is such a snippet, and
 * each relative link resolves. {@code -Dinbox.docs.write=true} first copies every region into its
 * block (after an example changed), then checks as usual.
 */
class GuideDocsTest {

  private static final Path ROOT = repositoryRoot();

  @Test
  void readmeAndDocsShowTheExamplesVerbatimAndTheirLinksResolve() throws IOException {
    DocsChecker checker = new DocsChecker(ROOT);
    List<Path> pages = markdownPages();
    if (Boolean.getBoolean("inbox.docs.write")) {
      for (Path page : pages) {
        Files.writeString(page, checker.withSnippetsFromSources(page), StandardCharsets.UTF_8);
      }
    }
    List<String> problems = new ArrayList<>();
    for (Path page : pages) {
      problems.addAll(checker.check(page, mustBeSnippets(page)));
    }
    assertThat(problems).as("documentation problems").isEmpty();
  }

  @Test
  void everyGuidePageStartsFromAnExample() throws IOException {
    List<String> withoutExample = new ArrayList<>();
    for (Path page : guidePages()) {
      boolean hasSnippet =
          Files.readAllLines(page).stream().anyMatch(l -> DocsChecker.SNIPPET.matcher(l).matches());
      if (!hasSnippet && !page.getFileName().toString().equals("README.md")) {
        withoutExample.add(ROOT.relativize(page).toString());
      }
    }
    assertThat(guidePages()).as("guide pages").hasSizeGreaterThanOrEqualTo(11);
    assertThat(withoutExample).as("guide pages with no compiled example").isEmpty();
  }

  private static boolean mustBeSnippets(Path page) {
    return page.equals(ROOT.resolve("README.md")) || page.startsWith(ROOT.resolve("docs/guide"));
  }

  private static List<Path> markdownPages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  private static List<Path> guidePages() throws IOException {
    try (Stream<Path> guide = Files.list(ROOT.resolve("docs/guide"))) {
      return guide.filter(p -> p.toString().endsWith(".md")).sorted().toList();
    }
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no repository root (a directory holding mvnw) above here");
    }
    return dir;
  }
}
