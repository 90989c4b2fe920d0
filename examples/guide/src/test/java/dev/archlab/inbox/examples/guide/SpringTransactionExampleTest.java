package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The JDBC guide's Spring transaction example on H2: one ledger row, the repeat DUPLICATE. */
class SpringTransactionExampleTest {

  @Test
  void ledgerRowAndDoneCommitInTheSpringTransactionOnce() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:guide-spring;DB_CLOSE_DELAY=-1");

    try (SpringTransactionExample example = new SpringTransactionExample(ds)) {
      Outcome first = example.consume(Messages.payment("pay-spring-1", 990));
      Outcome again = example.consume(Messages.payment("pay-spring-1", 990));

      assertThat(first.status()).isEqualTo(Status.APPLIED);
      assertThat(again.status()).isEqualTo(Status.DUPLICATE);
    }
    assertThat(Ledger.rows(ds)).isEqualTo(1);
  }
}
