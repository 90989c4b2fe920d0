package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Leases must follow the database's clock (docs/DESIGN.md §8) whatever the dialect: this scans the
 * compiled main classes of the module with {@code javap} and fails on any read of the JVM's wall
 * clock, except the allowances listed below with their reasons. No behavioural test on one host can
 * catch a store that used {@code Instant.now()} for a lease, since the JVM and the test databases
 * share the host's clock.
 */
class StoreUsesNoJvmClockTest {

  /** Members that read the JVM's wall clock, as javap names them. */
  static final List<String> FORBIDDEN =
      List.of(
          "java/time/Instant.now:",
          "java/lang/System.currentTimeMillis:",
          "java/time/Clock.systemUTC:",
          "java/time/Clock.systemDefaultZone:",
          "java/time/Clock.system:",
          "java/time/LocalDateTime.now:",
          "java/time/OffsetDateTime.now:",
          "java/time/ZonedDateTime.now:",
          "java/time/LocalDate.now:",
          "java/time/LocalTime.now:",
          "java/util/Date.\"<init>\":()V");

  /** Allowed reads, "class.method -> member", and why. Each must still be there. */
  static final Map<String, String> ALLOWED =
      Map.of(
          "dev/archlab/inbox/jdbc/OneCommitConsumer$Builder.<init> -> java/time/Clock.systemUTC:",
          "default clock of the consumer's events (InboxEvent.at) only; never reaches the store",
          "dev/archlab/inbox/jdbc/BatchConsumer$Builder.<init> -> java/time/Clock.systemUTC:",
          "default clock of the consumer's events (InboxEvent.at) only; never reaches the store");

  private static final Pattern CLASS_HEADER =
      Pattern.compile("^(?:[a-z]+ )*(?:class|interface|enum) ([\\w.$]+)(?:[<\\s].*)?$");
  private static final Pattern METHOD_HEADER =
      Pattern.compile("^  (?:\\S.*? )?([\\w.$]+)\\(.*\\)(?: throws .*)?;$");

  /**
   * "class.method -> member" for every forbidden member the code of a class calls, and
   * "class.&lt;method reference&gt; -> member" for every method handle to one (a method reference,
   * which appears only in the constant pool and the bootstrap methods).
   */
  static Set<String> clockReads(List<Path> classFiles) {
    ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
    Set<String> found = new TreeSet<>();
    for (int from = 0; from < classFiles.size(); from += 20) {
      List<String> args = new ArrayList<>(List.of("-c", "-p", "-v"));
      classFiles.subList(from, Math.min(classFiles.size(), from + 20)).stream()
          .map(Path::toString)
          .forEach(args::add);
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int rc = javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0]));
      assertThat(rc).as("javap failed: %s", err).isZero();
      String className = "?";
      String member = "?";
      boolean pool = false;
      for (String line : out.toString().split("\n")) {
        Matcher c = CLASS_HEADER.matcher(line);
        if (c.matches()) {
          className = c.group(1).replace('.', '/');
          member = "?";
          pool = false;
          continue;
        }
        if (line.startsWith("Constant pool:") || line.startsWith("BootstrapMethods:")) {
          pool = true;
          continue;
        }
        if (line.equals("{")) {
          pool = false;
          continue;
        }
        if (!pool) {
          Matcher m = METHOD_HEADER.matcher(line);
          if (m.matches()) {
            String name = m.group(1);
            member = name.replace('.', '/').equals(className) ? "<init>" : name;
            continue;
          }
          if (line.equals("  static {};")) {
            member = "<clinit>";
            continue;
          }
        }
        for (String forbidden : FORBIDDEN) {
          if (!line.contains(forbidden)) {
            continue;
          }
          if (line.contains("REF_invoke")) {
            found.add(className + ".<method reference> -> " + forbidden);
          } else if (!pool && line.contains("invoke")) {
            found.add(className + "." + member + " -> " + forbidden);
          }
        }
      }
    }
    return found;
  }

  static List<Path> mainClasses() throws Exception {
    Path root =
        Path.of(JdbcInboxStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertThat(root).as("main classes are a directory (target/classes)").isDirectory();
    try (Stream<Path> files = Files.walk(root.resolve("dev/archlab/inbox/jdbc"))) {
      return files.filter(p -> p.toString().endsWith(".class")).sorted().toList();
    }
  }

  @Test
  @DisplayName("no main class of inbox-jdbc reads the JVM's wall clock, except as documented")
  void noJvmClockInTheStore() throws Exception {
    List<Path> classes = mainClasses();
    assertThat(classes)
        .as("the scan sees the store and every dialect")
        .anyMatch(p -> p.endsWith("JdbcInboxStore.class"))
        .anyMatch(p -> p.endsWith("dialect/PostgresDialect.class"))
        .anyMatch(p -> p.endsWith("dialect/MySqlDialect.class"))
        .anyMatch(p -> p.endsWith("dialect/MariaDbDialect.class"))
        .anyMatch(p -> p.endsWith("dialect/Statements.class"))
        .anyMatch(p -> p.endsWith("dialect/H2Dialect.class"))
        .anyMatch(p -> p.endsWith("dialect/JdbcDialect.class"))
        .hasSizeGreaterThan(20);
    Set<String> reads = clockReads(classes);
    Set<String> unexplained = new TreeSet<>(reads);
    unexplained.removeAll(ALLOWED.keySet());
    assertThat(unexplained).as("reads of the JVM clock in inbox-jdbc main classes").isEmpty();
    assertThat(reads).as("every allowance is still needed").containsAll(ALLOWED.keySet());
  }

  @Test
  @DisplayName("the scan catches calls, constructors, initialisers, lambdas, method references")
  void theScanCatchesCheats() throws Exception {
    Path testClasses =
        Path.of(Cheat.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Set<String> reads =
        clockReads(
            List.of(
                testClasses.resolve(Cheat.class.getName().replace('.', '/') + ".class"),
                testClasses.resolve(Sneaky.class.getName().replace('.', '/') + ".class")));
    String c = "dev/archlab/inbox/jdbc/StoreUsesNoJvmClockTest$Cheat";
    String s = "dev/archlab/inbox/jdbc/StoreUsesNoJvmClockTest$Sneaky";
    assertThat(reads)
        .containsExactlyInAnyOrder(
            c + ".lease -> java/time/Instant.now:",
            c + ".millis -> java/lang/System.currentTimeMillis:",
            c + ".date -> java/util/Date.\"<init>\":()V",
            c + ".clock -> java/time/Clock.systemDefaultZone:",
            c + ".local -> java/time/LocalDateTime.now:",
            c + ".<init> -> java/time/Clock.systemUTC:",
            c + ".<clinit> -> java/time/OffsetDateTime.now:",
            s + ".<method reference> -> java/time/Instant.now:",
            s + ".lambda$later$0 -> java/time/ZonedDateTime.now:");
  }

  /** Compiled into the test classes: direct reads the scan must catch, and one that is fine. */
  static final class Cheat {
    static final Object BOOT = java.time.OffsetDateTime.now();
    final Clock own = Clock.systemUTC();

    Instant lease() {
      return Instant.now().plusSeconds(30);
    }

    long millis() {
      return System.currentTimeMillis();
    }

    Date date() {
      return new Date();
    }

    Date epoch() {
      return new Date(0L); // not the clock
    }

    Clock clock() {
      return Clock.systemDefaultZone();
    }

    LocalDateTime local() throws java.io.IOException {
      return LocalDateTime.now();
    }
  }

  /** Reads of the clock that no method of the class makes itself. */
  static final class Sneaky {
    Supplier<Instant> reference() {
      return Instant::now;
    }

    Supplier<Object> later() {
      return () -> java.time.ZonedDateTime.now();
    }
  }
}
