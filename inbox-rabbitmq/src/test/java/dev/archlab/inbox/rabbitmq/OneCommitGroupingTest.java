package dev.archlab.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.GetResponse;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import dev.archlab.inbox.testkit.Await;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The one-commit mode consumes the deliveries waiting on a channel as one transaction: every good
 * message's effect commits in the same PostgreSQL transaction, a poison message among them fails
 * alone (retried through the retry queue, then dead-lettered once), and every delivery is acked.
 */
class OneCommitGroupingTest {

  @Test
  void deliveriesWaitingOnAChannelCommitInOneTransactionAndAPoisonOneFailsAlone() {
    DataSource ds = TestPostgres.dataSource();
    JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
    store.createSchemaIfMissing();
    Effects.createTable(ds);
    RabbitBroker.get();
    String name = "group-" + UUID.randomUUID().toString().substring(0, 8);
    // The transaction each message's handler last ran in: the committed one for a good message.
    Map<String, Long> txOf = new ConcurrentHashMap<>();
    OneCommitConsumer consumer =
        OneCommitConsumer.builder(name, store)
            .config(
                InboxConfig.custom()
                    .retryPolicy(
                        RetryPolicy.custom()
                            .maxAttempts(2)
                            .initialDelay(Duration.ofMillis(10))
                            .jitter(0)
                            .build())
                    .build())
            .handler(
                (m, attempt, c) -> {
                  try (Statement st = c.createStatement();
                      ResultSet rs = st.executeQuery("SELECT txid_current()")) {
                    rs.next();
                    txOf.put(m.id(), rs.getLong(1));
                  }
                  if (m.id().startsWith("poison")) {
                    throw new IllegalStateException("poison message " + m.id());
                  }
                  Effects.insert(c, name, m.id());
                })
            .build();
    try (RabbitFixture rabbit = new RabbitFixture(name)) {
      Set<String> good = new HashSet<>();
      for (int i = 0; i < 20; i++) {
        String id = i == 7 ? "poison-7" : "m-" + i;
        if (i != 7) {
          good.add(id);
        }
        rabbit.publishNoWait(id, "payload-" + id);
      }
      rabbit.confirm();

      RabbitInboxConsumerTest.Ends ends = new RabbitInboxConsumerTest.Ends();
      try (RabbitInboxConsumer rabbitConsumer =
          RabbitInboxConsumer.builder(rabbit.broker.factory(), rabbit.topology, consumer.asMode())
              .prefetch(20)
              .maxDeliveriesPerCall(20)
              // All 20 are queued before the start: the worker takes them as one call as soon as
              // they have arrived; the linger only bounds the wait for them (and is spent once
              // more on the poison's retry copy, which comes back alone).
              .linger(Duration.ofSeconds(10))
              .minRetryDelay(Duration.ofMillis(10))
              .listener(ends)
              .build()) {
        rabbitConsumer.start();
        Await.until("every delivery ended", () -> ends.ended.get() >= 20);
      }
      assertThat(ends.ended.get()).isEqualTo(20);
      assertThat(rabbit.ready(rabbit.topology.workQueue())).isZero();
      assertThat(rabbit.ready(rabbit.topology.retryQueue())).isZero();

      Map<String, Integer> effects = Effects.counts(ds, name);
      assertThat(effects.keySet()).isEqualTo(good);
      assertThat(effects.values()).allMatch(c -> c == 1);
      Set<Long> committedIn = new HashSet<>();
      for (String id : good) {
        committedIn.add(txOf.get(id));
      }
      assertThat(committedIn).as("transactions the good messages committed in").hasSize(1);

      int dead = 0;
      for (GetResponse r : rabbit.deadLetters()) {
        assertThat(r.getProps().getMessageId()).isEqualTo("poison-7");
        assertThat(RabbitFixture.header(r, Settlement.LAST_ERROR)).contains("poison message");
        dead++;
      }
      assertThat(dead).isEqualTo(1);
    }
  }
}
