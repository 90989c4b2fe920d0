package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.jdbc.InboxAdmin;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.operator.ConsumerOverview;
import java.time.Duration;
import java.util.List;

/**
 * The operations guide's example: what the {@code inbox} command's {@code status}, {@code list} and
 * {@code retry-dead} do, called from code on a JDBC store (for an admin endpoint of your own).
 */
public final class OperationsExample {

  private final JdbcInboxStore store;

  /**
   * Operations on the given store.
   *
   * @param store the store whose table is inspected
   */
  public OperationsExample(JdbcInboxStore store) {
    this.store = store;
  }

  /**
   * The "dead" runbook in code: lists the consumer's DEAD records with their last error, then makes
   * them retryable once the cause is fixed.
   *
   * @param consumer the consumer whose dead records are retried
   * @return how many DEAD records were made retryable
   */
  public long retryDeadAfterTheFix(String consumer) {
    // tag::dead[]
    InboxAdmin admin = store.admin();
    for (ConsumerOverview stats : admin.stats(Duration.ofDays(7))) { // like `inbox status`
      System.out.printf(
          "%s: %d dead, %d stuck%n", stats.consumer(), stats.dead(), stats.expiredLeases());
    }
    List<InboxRecord> dead = store.list(RecordState.DEAD, consumer, 100); // `inbox list`
    for (InboxRecord record : dead) {
      System.out.println(record.messageId() + ": " + record.lastError());
    }
    // ... fix the cause, then (like `inbox retry-dead CONSUMER`):
    long retried = admin.retryDead(consumer, List.of()); // empty: every DEAD record
    // end::dead[]
    return retried;
  }
}
