package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules about the whole repository's sources, checked by reading them: every module's directory
 * sits beside this one, so the test sees all of them without depending on any.
 */
class SourceRulesTest {

  private static final int MAX_MAIN_LINES = 500;

  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("repository root (the directory holding mvnw)").isNotNull();
    return dir;
  }

  /** Every {@code src/<sourceSet>/java} tree in the repository (modules and examples). */
  private static List<Path> javaFiles(Path root, String sourceSet) {
    Path tail = Path.of("src", sourceSet, "java");
    List<Path> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.walk(root, 5)) {
      for (Path sources :
          dirs.filter(d -> d.endsWith(tail) && Files.isDirectory(d))
              .filter(d -> !root.relativize(d).toString().contains("target"))
              .toList()) {
        try (Stream<Path> files = Files.walk(sources)) {
          files.filter(f -> f.toString().endsWith(".java")).forEach(out::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void noMainClassIsLongerThanTheLimit() {
    Path root = root();
    List<Path> main = javaFiles(root, "main");
    assertThat(main).as("main sources found under " + root).hasSizeGreaterThan(50);
    List<String> tooLong = new ArrayList<>();
    for (Path file : main) {
      String relative = root.relativize(file).toString().replace('\\', '/');
      int count = lines(file).size();
      if (count > MAX_MAIN_LINES) {
        tooLong.add(relative + " (" + count + " lines)");
      }
    }
    assertThat(tooLong).as("main classes over " + MAX_MAIN_LINES + " lines").isEmpty();
  }
}
