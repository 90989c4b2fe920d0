package dev.archlab.inbox.jdbc.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's end-to-end example on an in-memory H2 database, and checks that the README
 * shows this very source, so the snippet cannot drift from code that compiles and works.
 */
class PaymentsExampleTest {

  @Test
  void theReadmeExampleAppliesOnceAndAnswersTheRedeliveryAsDuplicate() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:readme-example;DB_CLOSE_DELAY=-1");

    List<Outcome> outcomes = PaymentsExample.run(ds);

    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.DUPLICATE);
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT event_id, amount_cents FROM ledger")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("pay-2026-0001");
      assertThat(rs.getLong(2)).isEqualTo(1250);
      assertThat(rs.next()).as("exactly one ledger row").isFalse();
    }
  }

  @Test
  void theReadmeShowsTheExampleVerbatim() throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/archlab/inbox/jdbc/example/PaymentsExample.java"),
            StandardCharsets.UTF_8);
    String snippet =
        source.substring(
            source.indexOf('\n', source.indexOf("// README:start")) + 1,
            source.indexOf("// README:end"));
    String readme = Files.readString(Path.of("../README.md"), StandardCharsets.UTF_8);
    assertThat(readme).contains("```java\n" + snippet + "```\n");
  }
}
