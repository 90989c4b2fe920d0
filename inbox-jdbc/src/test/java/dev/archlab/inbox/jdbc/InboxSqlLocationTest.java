package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SQL on the inbox table lives in the dialect package (and the shipped DDL files) only: the main
 * sources of inbox-jdbc and inbox-cli are scanned for it with {@link InboxSqlScanner}, whose own
 * tests below show that it finds such SQL where it is.
 */
class InboxSqlLocationTest {

  /** Surefire runs in the module's directory; the CLI's sources are beside it. */
  private static final Path JDBC_MAIN = Path.of("src/main/java");

  private static final Path CLI_MAIN = Path.of("../inbox-cli/src/main/java");

  private static final String DIALECT_PACKAGE = "dev/archlab/inbox/jdbc/dialect/";

  @Test
  @DisplayName("no main source outside the dialect package holds SQL on the inbox table")
  void inboxSqlOnlyInTheDialectPackage() throws IOException {
    List<Path> files = new ArrayList<>(javaFiles(JDBC_MAIN));
    files.addAll(javaFiles(CLI_MAIN));
    assertThat(files)
        .as("the scan sees the store, its table operations and the CLI")
        .anyMatch(p -> p.endsWith("JdbcInboxStore.java"))
        .anyMatch(p -> p.endsWith("InboxTable.java"))
        .anyMatch(p -> p.endsWith("InboxAdmin.java"))
        .anyMatch(p -> p.endsWith("SimulateCommand.java"));
    List<String> outside = new ArrayList<>();
    for (Path file : files) {
      if (file.toString().replace('\\', '/').contains(DIALECT_PACKAGE)) {
        continue;
      }
      for (String sql : InboxSqlScanner.inboxSql(read(file))) {
        outside.add(file + ": " + sql);
      }
    }
    assertThat(outside).as("SQL on the inbox table outside " + DIALECT_PACKAGE).isEmpty();
  }

  @Test
  @DisplayName("the scan finds the catalogue's statements in the dialect package")
  void theScanFindsTheCatalogue() throws IOException {
    String catalogue = read(JDBC_MAIN.resolve(DIALECT_PACKAGE + "Statements.java"));
    List<String> found = InboxSqlScanner.inboxSql(catalogue);
    assertThat(found)
        .anyMatch(s -> s.startsWith("UPDATE") && s.contains("SET state = 'DONE'"))
        .anyMatch(s -> s.startsWith("DELETE FROM") && s.contains("state = 'DONE'"))
        .anyMatch(s -> s.startsWith("SELECT") && s.contains("FROM"))
        .anyMatch(s -> s.startsWith("INSERT INTO"))
        .anyMatch(s -> s.startsWith("CREATE INDEX"))
        .hasSizeGreaterThanOrEqualTo(20);
  }

  @Test
  @DisplayName("the scan flags inbox SQL however it is written, and nothing else")
  void theScanTellsInboxSqlFromOtherText() {
    assertThat(InboxSqlScanner.inboxSql("String s = \"UPDATE \" + table + \" SET x = 1\";"))
        .containsExactly("UPDATE SET x = 1");
    assertThat(
            InboxSqlScanner.inboxSql(
                "try (var ps = c.prepareStatement(\n    \"SELECT COUNT(*) FROM \"\n"
                    + "        + store.table() + \" WHERE 1 = 1\")) {}"))
        .hasSize(1);
    assertThat(InboxSqlScanner.inboxSql("run(\"DELETE FROM x WHERE state = 'DEAD'\");")).hasSize(1);
    assertThat(InboxSqlScanner.inboxSql("q = \"\"\"\n  SELECT consumer FROM somewhere\n\"\"\";"))
        .hasSize(1);
    assertThat(InboxSqlScanner.inboxSql("String ddl = \"CREATE INDEX i ON \" + t + \" (a)\";"))
        .hasSize(1);
    // Another table's SQL, prose, and SQL in comments are not inbox SQL.
    assertThat(
            InboxSqlScanner.inboxSql(
                "ps = c.prepareStatement(\"INSERT INTO \" + EFFECTS + \" (message_id) VALUES"
                    + " (?)\");\n"
                    + "// UPDATE inbox SET state = 'DONE'\n"
                    + "/* DELETE FROM inbox WHERE state = 'DONE' */\n"
                    + "throw new X(\"select the table first, then update it\");\n"
                    + "char q = '\"'; String s = \"a;b\";"))
        .isEmpty();
  }

  private static List<Path> javaFiles(Path root) throws IOException {
    assertThat(root).as("source root " + root.toAbsolutePath()).isDirectory();
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
