package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The boundary {@code inbox-core}'s {@code module-info.java} draws, checked on the sources: every
 * type a user can reach in an exported package says what it guarantees, and the internal package is
 * used only by the modules it is exported to (the stores), never by an adapter. The same holds for
 * inbox-jdbc's {@code internal} package, which only inbox-jdbc's own packages use.
 */
class ApiBoundaryTest {

  private static final Pattern EXPORT = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;");
  private static final Pattern QUALIFIED_EXPORT =
      Pattern.compile("exports\\s+([\\w.]+)\\s+to\\s+([\\w.,\\s]+);");
  private static final Pattern TYPE =
      Pattern.compile(
          "^(\\s*)((?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)"
              + "\\s+)*)(class|interface|enum|record|@interface)\\s+(\\w+)");
  private static final Pattern MODULE_NAME =
      Pattern.compile("<inbox\\.module\\.name>([\\w.]+)</inbox\\.module\\.name>");

  private static Path root() {
    return SourceRulesTest.root();
  }

  private static Path coreSources() {
    return root().resolve("inbox-core/src/main/java");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> javaFiles(Path dir, int depth) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir, depth)) {
      return files.filter(f -> f.toString().endsWith(".java")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The packages {@code module-info.java} exports to everyone. */
  private static List<String> exportedPackages() {
    List<String> out = new ArrayList<>();
    for (String line : read(coreSources().resolve("module-info.java")).split("\n")) {
      Matcher m = EXPORT.matcher(line);
      if (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * The types of {@code source} a user can reach: public top-level types, and nested types that are
   * public or protected, or that sit in an interface (implicitly public) and are not private.
   */
  static List<String> undocumentedApiTypes(String source) {
    List<String> lines = List.of(source.split("\n", -1));
    List<String> out = new ArrayList<>();
    boolean topLevelIsInterface = false;
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = TYPE.matcher(lines.get(i));
      if (!m.find()) {
        continue;
      }
      boolean nested = !m.group(1).isEmpty();
      String modifiers = m.group(2);
      String kind = m.group(3);
      if (!nested) {
        topLevelIsInterface = kind.equals("interface") || kind.equals("@interface");
      }
      boolean reachable =
          nested
              ? !modifiers.contains("private")
                  && (modifiers.contains("public")
                      || modifiers.contains("protected")
                      || topLevelIsInterface)
              : modifiers.contains("public");
      if (reachable && !hasJavadoc(lines, i)) {
        out.add(m.group(4) + " (line " + (i + 1) + ")");
      }
    }
    return out;
  }

  /** Whether a Javadoc comment ends right above line {@code i}, annotations aside. */
  private static boolean hasJavadoc(List<String> lines, int i) {
    int j = i - 1;
    while (j >= 0 && (lines.get(j).strip().startsWith("@") || lines.get(j).isBlank())) {
      j--;
    }
    if (j < 0 || !lines.get(j).strip().endsWith("*/")) {
      return false;
    }
    while (j >= 0 && !lines.get(j).contains("/*")) {
      j--;
    }
    return j >= 0 && lines.get(j).contains("/**");
  }

  @Test
  void everyReachableTypeOfAnExportedPackageHasJavadoc() {
    List<String> exported = exportedPackages();
    assertThat(exported).as("packages exported by inbox-core").contains("dev.archlab.inbox");
    List<String> missing = new ArrayList<>();
    for (String pkg : exported) {
      Path dir = coreSources().resolve(pkg.replace('.', '/'));
      assertThat(dir).as("source directory of exported package " + pkg).isDirectory();
      for (Path file : javaFiles(dir, 1)) {
        if (file.getFileName().toString().equals("package-info.java")) {
          continue;
        }
        for (String type : undocumentedApiTypes(read(file))) {
          missing.add(pkg + "." + type);
        }
      }
    }
    assertThat(missing).as("public types without Javadoc in exported packages").isEmpty();
  }

  @Test
  void theCheckSeesAnUndocumentedTypeAndANestedOneOfAnInterface() {
    String source =
        "package p;\n\n/** Documented. */\npublic interface Api {\n"
            + "  record Hidden(int a) {}\n\n  /** Documented. */\n  enum Kind { A }\n}\n"
            + "final class PackagePrivate {}\n";
    assertThat(undocumentedApiTypes(source)).containsExactly("Hidden (line 5)");
    assertThat(undocumentedApiTypes("package p;\n@Deprecated\npublic final class Bare {}\n"))
        .containsExactly("Bare (line 3)");
  }

  @Test
  void onlyTheModulesTheInternalPackageIsExportedToUseIt() {
    Path root = root();
    Map<String, Set<String>> qualified = new HashMap<>();
    Matcher m = QUALIFIED_EXPORT.matcher(read(coreSources().resolve("module-info.java")));
    while (m.find()) {
      Set<String> to = new TreeSet<>();
      for (String name : m.group(2).split(",")) {
        to.add(name.strip());
      }
      qualified.put(m.group(1), to);
    }
    assertThat(qualified).as("qualified exports of inbox-core").isNotEmpty();
    List<String> offenders = new ArrayList<>();
    Set<String> modulesSeen = new TreeSet<>();
    for (Path pom : javaModulePoms(root)) {
      Path module = pom.getParent();
      Matcher name = MODULE_NAME.matcher(read(pom));
      String moduleName = name.find() ? name.group(1) : root.relativize(module).toString();
      modulesSeen.add(moduleName);
      if (module.equals(root.resolve("inbox-core"))) {
        continue;
      }
      for (String line : codeLines(root, module)) {
        for (Map.Entry<String, Set<String>> e : qualified.entrySet()) {
          if (line.contains(e.getKey() + ".") && !e.getValue().contains(moduleName)) {
            offenders.add(line);
          }
        }
      }
    }
    for (Set<String> to : qualified.values()) {
      assertThat(modulesSeen).as("modules of this repository").containsAll(to);
    }
    assertThat(offenders)
        .as("uses of inbox-core's internal packages outside the modules they are exported to")
        .isEmpty();
  }

  @Test
  void inboxJdbcsInternalPackageIsUsedOnlyInsideInboxJdbc() {
    Path root = root();
    // Assembled, so that this line is not a use of the package itself.
    String internal = String.join(".", "dev.archlab.inbox.jdbc", "internal", "");
    Path jdbcInternal = root.resolve("inbox-jdbc/src/main/java/dev/archlab/inbox/jdbc/internal");
    assertThat(javaFiles(jdbcInternal, 1))
        .as("sources of inbox-jdbc's internal package")
        .isNotEmpty();
    List<String> offenders = new ArrayList<>();
    for (Path pom : javaModulePoms(root)) {
      Path module = pom.getParent();
      if (module.equals(root.resolve("inbox-jdbc"))) {
        continue;
      }
      for (String line : codeLines(root, module)) {
        if (line.contains(internal)) {
          offenders.add(line);
        }
      }
    }
    assertThat(offenders).as("uses of inbox-jdbc's internal package in other modules").isEmpty();
  }

  /**
   * The lines of a module's main and test sources that are not comments, each as {@code file: line}
   * (the file relative to the repository).
   */
  private static List<String> codeLines(Path root, Path module) {
    List<Path> files = new ArrayList<>(javaFiles(module.resolve("src/main/java"), 20));
    files.addAll(javaFiles(module.resolve("src/test/java"), 20));
    List<String> out = new ArrayList<>();
    for (Path file : files) {
      for (String line : read(file).split("\n")) {
        String t = line.strip();
        if (!t.startsWith("//") && !t.startsWith("*")) {
          out.add(root.relativize(file) + ": " + t);
        }
      }
    }
    return out;
  }

  /** Every module's pom that has Java sources (the modules and the examples). */
  private static List<Path> javaModulePoms(Path root) {
    try (Stream<Path> poms = Files.walk(root, 3)) {
      return poms.filter(p -> p.getFileName().toString().equals("pom.xml"))
          .filter(p -> !p.getParent().equals(root))
          .filter(p -> !root.relativize(p).toString().contains("target"))
          .filter(p -> Files.isDirectory(p.getParent().resolve("src")))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
