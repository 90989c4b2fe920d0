package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Runs the JDBC guide's end-to-end example on an in-memory H2 database (GuideDocsTest checks that
 * the guide shows this very source).
 */
class PaymentsExampleTest {

  @Test
  void theGuideExampleAppliesOnceAndAnswersTheRedeliveryAsDuplicate() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:guide-payments;DB_CLOSE_DELAY=-1");

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
}
