package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.outbox.OutboxPublisher;
import dev.archlab.inbox.outbox.OutboxRow;
import dev.archlab.inbox.outbox.OutgoingIds;
import dev.archlab.inbox.outbox.PublishResult;
import java.util.ArrayList;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Runs the outbox guide's example on an in-memory H2 database, with a publisher that keeps what it
 * is given (inbox-outbox's own tests publish to a real Kafka broker).
 */
class OutboxExampleTest {

  @Test
  void theOrderIsWrittenOnceAndItsPaymentRequestRelayedOnceUnderItsStableId() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:guide-outbox;DB_CLOSE_DELAY=-1");
    List<OutboxRow> published = new ArrayList<>();
    OutboxPublisher keeping =
        new OutboxPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxRow> rows) {
            published.addAll(rows);
            return rows.stream().map(r -> PublishResult.sent()).toList();
          }

          @Override
          public void close() {}
        };

    List<Outcome> outcomes = OutboxExample.run(ds, keeping);

    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.DUPLICATE);
    assertThat(published).hasSize(1);
    assertThat(published.get(0).id()).isEqualTo(OutgoingIds.derived("orders", "order-42", 0));
    assertThat(published.get(0).destination()).isEqualTo("payments");
    assertThat(published.get(0).key()).isEqualTo("order-42");
  }
}
