package dev.archlab.inbox.examples.guide;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks Markdown against the repository: a code block under a {@code <!-- snippet: path#region
 * -->} line must equal that region of the source file (the lines between {@code tag::region[]} and
 * {@code end::region[]}, common indentation removed); on a page that requires it, every Java block
 * must be such a snippet; and every relative link must name an existing file, and an existing
 * heading or {@code <a id>} when it has an anchor into Markdown.
 */
final class DocsChecker {

  /** The marker line above a code block; the path is relative to the repository root. */
  static final Pattern SNIPPET = Pattern.compile("^<!-- snippet: (\\S+?)#(\\S+) -->\\s*$");

  private static final Pattern INLINE_LINK =
      Pattern.compile(
          "!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern REFERENCE_LINK =
      Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s+(\\S+)");
  private static final Pattern HTML_ANCHOR =
      Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"", Pattern.CASE_INSENSITIVE);
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
  private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");

  private final Path root;
  private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

  DocsChecker(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /**
   * Every problem in one Markdown file, each naming the file and line.
   *
   * @param markdown the file
   * @param javaBlocksMustBeSnippets whether a {@code ```java} block without a marker is a problem
   */
  List<String> check(Path markdown, boolean javaBlocksMustBeSnippets) {
    List<String> problems = new ArrayList<>();
    List<String> lines = read(markdown);
    String where = root.relativize(markdown.toAbsolutePath().normalize()).toString();
    boolean inFence = false;
    String fence = "";
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String trimmed = line.stripLeading();
      if (inFence) {
        if (trimmed.startsWith(fence) && trimmed.substring(fence.length()).isBlank()) {
          inFence = false;
        }
        continue;
      }
      if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
        fence = trimmed.substring(0, 3);
        inFence = true;
        String info = trimmed.substring(3).strip();
        boolean marked = i > 0 && SNIPPET.matcher(lines.get(i - 1)).matches();
        if (javaBlocksMustBeSnippets && info.equals("java") && !marked) {
          problems.add(
              where
                  + ":"
                  + (i + 1)
                  + ": a Java block without a '<!-- snippet: path#region -->'"
                  + " line above it, so nothing compiles it");
        }
        continue;
      }
      Matcher snippet = SNIPPET.matcher(line);
      if (snippet.matches()) {
        checkSnippet(where, i, lines, snippet.group(1), snippet.group(2), problems);
      }
      String text = INLINE_CODE.matcher(line).replaceAll("");
      List<String> targets = new ArrayList<>();
      Matcher link = INLINE_LINK.matcher(text);
      while (link.find()) {
        targets.add(link.group(1));
      }
      Matcher reference = REFERENCE_LINK.matcher(text);
      if (reference.find()) {
        targets.add(reference.group(1));
      }
      for (String target : targets) {
        checkLink(where + ":" + (i + 1), markdown, target, problems);
      }
    }
    return problems;
  }

  /**
   * The file with each snippet block replaced by its source region (for {@code
   * -Dinbox.docs.write=true}); blocks whose region is missing are left as they are.
   */
  String withSnippetsFromSources(Path markdown) {
    List<String> lines = read(markdown);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      out.add(lines.get(i));
      Matcher snippet = SNIPPET.matcher(lines.get(i));
      int open = i + 1;
      if (!snippet.matches() || open >= lines.size() || !lines.get(open).startsWith("```")) {
        continue;
      }
      int close = closingFence(lines, open);
      List<String> region = regionOrNull(snippet.group(1), snippet.group(2));
      if (close < 0 || region == null) {
        continue;
      }
      out.add(lines.get(open));
      out.addAll(region);
      out.add(lines.get(close));
      i = close;
    }
    return String.join("\n", out) + "\n";
  }

  private void checkSnippet(
      String where,
      int markerIndex,
      List<String> lines,
      String file,
      String region,
      List<String> problems) {
    String at = where + ":" + (markerIndex + 1) + ": snippet " + file + "#" + region;
    int open = markerIndex + 1;
    if (open >= lines.size() || !lines.get(open).startsWith("```")) {
      problems.add(at + ": no code block right below the marker");
      return;
    }
    int close = closingFence(lines, open);
    if (close < 0) {
      problems.add(at + ": the code block is never closed");
      return;
    }
    Path source = root.resolve(file).normalize();
    if (!Files.isRegularFile(source)) {
      problems.add(at + ": no such source file");
      return;
    }
    List<String> expected = regionOrNull(file, region);
    if (expected == null) {
      problems.add(
          at + ": the source has no region 'tag::" + region + "[]' … 'end::" + region + "[]'");
      return;
    }
    List<String> shown = lines.subList(open + 1, close);
    if (!shown.equals(expected)) {
      problems.add(
          at + ": the block differs from the source region" + firstDifference(shown, expected));
    }
  }

  /** The region's lines with their common indentation removed, or null if it is not there. */
  private List<String> regionOrNull(String file, String region) {
    Path source = root.resolve(file).normalize();
    if (!Files.isRegularFile(source)) {
      return null;
    }
    List<String> lines = read(source);
    String start = "tag::" + region + "[]";
    String end = "end::" + region + "[]";
    int from = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(start)) {
        from = i;
        break;
      }
    }
    if (from < 0) {
      return null;
    }
    List<String> body = new ArrayList<>();
    for (int i = from + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.contains(end)) {
        return dedent(body);
      }
      // Markers of other regions nested inside this one are not part of the code.
      if (!line.contains("tag::") && !line.contains("end::")) {
        body.add(line);
      }
    }
    return null;
  }

  private void checkLink(String where, Path markdown, String rawTarget, List<String> problems) {
    if (SCHEME.matcher(rawTarget).find()) {
      return; // http:, https:, mailto: — not checked offline
    }
    String target = URLDecoder.decode(rawTarget.replace("+", "%2B"), StandardCharsets.UTF_8);
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path file =
        path.isEmpty()
            ? markdown.toAbsolutePath().normalize()
            : markdown.toAbsolutePath().getParent().resolve(path).normalize();
    if (!Files.exists(file)) {
      problems.add(where + ": link to a missing file: " + rawTarget);
      return;
    }
    if (anchor != null && file.toString().endsWith(".md") && !anchors(file).contains(anchor)) {
      problems.add(
          where
              + ": link to a missing anchor: "
              + rawTarget
              + " (no such heading in "
              + root.relativize(file)
              + ")");
    }
  }

  private Set<String> anchors(Path markdown) {
    return anchorsByFile.computeIfAbsent(markdown, DocsChecker::readAnchors);
  }

  private static Set<String> readAnchors(Path markdown) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inFence = false;
    for (String line : read(markdown)) {
      String trimmed = line.stripLeading();
      if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
        inFence = !inFence;
        continue;
      }
      if (inFence) {
        continue;
      }
      Matcher html = HTML_ANCHOR.matcher(line);
      while (html.find()) {
        anchors.add(html.group(1));
      }
      if (line.matches("#{1,6}\\s.*")) {
        String heading = line.replaceFirst("^#+\\s*", "").replaceFirst("\\s*#*\\s*$", "");
        String slug = slug(heading);
        int count = seen.merge(slug, 1, Integer::sum);
        anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
      }
    }
    return anchors;
  }

  /** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "");
    return text.toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "")
        .replace(' ', '-');
  }

  private static int closingFence(List<String> lines, int open) {
    String fence = lines.get(open).stripLeading().substring(0, 3);
    for (int i = open + 1; i < lines.size(); i++) {
      String trimmed = lines.get(i).stripLeading();
      if (trimmed.startsWith(fence) && trimmed.substring(3).isBlank()) {
        return i;
      }
    }
    return -1;
  }

  private static List<String> dedent(List<String> lines) {
    int common =
        lines.stream()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    return lines.stream()
        .map(line -> line.isBlank() ? "" : line.substring(common).stripTrailing())
        .toList();
  }

  private static String firstDifference(List<String> shown, List<String> expected) {
    for (int i = 0; i < Math.max(shown.size(), expected.size()); i++) {
      String a = i < shown.size() ? shown.get(i) : "<end of block>";
      String b = i < expected.size() ? expected.get(i) : "<end of region>";
      if (!a.equals(b)) {
        return " at its line " + (i + 1) + ":\n  guide:  " + a + "\n  source: " + b;
      }
    }
    return "";
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
