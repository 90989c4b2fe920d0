package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "dead" runbook in code: a parked message is made retryable and then applies. */
class OperationsExampleTest {

  @TempDir Path dir;

  @Test
  void deadRecordRetriedAfterTheFixAppliesOnItsNextDelivery() {
    JdbcInboxStore store =
        JdbcInboxStore.builder(SqliteDialect.dataSource(dir.resolve("ops.db"))).build();
    store.createSchemaIfMissing();
    AtomicBoolean fixed = new AtomicBoolean(false);
    Message poison = Message.of("pay-7");
    try (IdempotentConsumer payments =
        IdempotentConsumer.builder("payments", store)
            .handler(
                (message, attempt) -> {
                  if (!fixed.get()) {
                    throw new IllegalStateException("downstream refused pay-7");
                  }
                })
            .config(
                InboxConfig.custom()
                    .retryPolicy(RetryPolicy.custom().maxAttempts(1).build())
                    .build())
            .build()) {
      assertThat(payments.consume(poison).status()).isEqualTo(Status.DEAD);
      assertThat(payments.consume(poison).status()).as("DEAD stays DEAD").isEqualTo(Status.DEAD);

      fixed.set(true);
      long retried = new OperationsExample(store).retryDeadAfterTheFix("payments");

      assertThat(retried).isEqualTo(1);
      assertThat(payments.consume(poison).status()).isEqualTo(Status.APPLIED);
    }
  }
}
