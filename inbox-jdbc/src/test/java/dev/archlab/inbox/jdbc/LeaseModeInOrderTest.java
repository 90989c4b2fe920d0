package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link IdempotentConsumer#consumeInOrder} on the JDBC store (new ids claimed together, then each
 * run and completed alone) answers as single {@code consume} calls in order that stop at the first
 * delivery that does not finish, and leaves the same records: the claims of deliveries after that
 * one are given back without counting an attempt. Random sequences (repeats, poison, flaky
 * messages, clock moves, ids held under another instance's lease) are played on two tables and
 * compared outcome by outcome, then record by record and business row by business row.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class LeaseModeInOrderTest {

  static final String BATCH_TABLE = "inbox_lio_batch";
  static final String SINGLE_TABLE = "inbox_lio_single";
  static final String EFFECTS = "lio_effects";
  static final String CONSUMER = "in-order";
  static final InboxConfig CONFIG =
      InboxConfig.custom()
          .lease(Duration.ofSeconds(30))
          .retryPolicy(
              RetryPolicy.custom()
                  .maxAttempts(3)
                  .initialDelay(Duration.ofSeconds(1))
                  .multiplier(1)
                  .jitter(0)
                  .build())
          .build();

  @Parameter TestDatabases.Registered registered;

  TestDatabase database() {
    return registered.get();
  }

  SideLedger ledger;

  @BeforeEach
  void effectsTable() throws SQLException {
    ledger = new SideLedger(database(), EFFECTS);
  }

  /** A store on its own table and a lease-mode consumer writing its effect transactionally. */
  final class Side {
    final String tag;
    final JdbcInboxStore store;
    final IdempotentConsumer consumer;

    Side(String tag, String table) throws SQLException {
      this.tag = tag;
      this.store = database().freshStore(table);
      this.consumer =
          IdempotentConsumer.builder(CONSUMER, store)
              .config(CONFIG)
              .effect(
                  store.transactional(
                      (m, attempt, c) -> {
                        effect(c, m);
                        if (m.id().startsWith("p")
                            || (m.id().startsWith("f") && attempt.number() == 1)) {
                          throw new IllegalArgumentException("bad " + m.id());
                        }
                      }))
              .build();
    }

    void effect(Connection c, Message m) throws SQLException {
      ledger.book(c, tag, m);
    }

    long effects(String id) throws SQLException {
      return ledger.rows(tag, id);
    }

    String record(String id) {
      return SideLedger.describe(store.find(CONSUMER, id));
    }

    /** Holds {@code id} under another instance's claim; the claim, or null if not claimed. */
    Claim hold(String id) {
      BeginResult b = store.begin(new BeginRequest(CONSUMER, id, CONFIG.lease(), 3, null));
      return b.claimed() ? b.claim() : null;
    }
  }

  @Test
  void inOrderAnswersAsSingleCallsThatStopAtTheFirstUnfinished() throws Exception {
    int seeds = database().modelSeeds() >= 200 ? 40 : 25;
    for (long seed = 1; seed <= seeds; seed++) {
      try {
        playSeed(seed);
      } catch (AssertionError | Exception e) {
        throw new AssertionError("seed " + seed + " failed", e);
      }
    }
  }

  void playSeed(long seed) throws Exception {
    ledger.clear();
    Random random = new Random(seed);
    Side batch = new Side("batch", BATCH_TABLE);
    Side single = new Side("single", SINGLE_TABLE);
    List<String> ids = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      ids.add((n % 5 == 1 ? "p" : n % 4 == 2 ? "f" : "m") + n);
    }
    List<Claim[]> held = new ArrayList<>();
    for (int step = 0; step < 14; step++) {
      int action = random.nextInt(8);
      if (action == 0) {
        database().shiftTime(BATCH_TABLE, Duration.ofMinutes(1));
        database().shiftTime(SINGLE_TABLE, Duration.ofMinutes(1));
        continue;
      }
      if (action == 1) {
        // Another instance claims an id on both sides (nothing if it cannot).
        String id = ids.get(random.nextInt(ids.size()));
        Claim a = batch.hold(id);
        Claim b = single.hold(id);
        assertThat(a == null).as("hold of " + id).isEqualTo(b == null);
        if (a != null) {
          held.add(new Claim[] {a, b});
        }
        continue;
      }
      if (action == 2 && !held.isEmpty()) {
        Claim[] h = held.remove(random.nextInt(held.size()));
        batch.store.complete(h[0], null);
        single.store.complete(h[1], null);
        continue;
      }
      List<Message> messages = new ArrayList<>();
      int size = 1 + random.nextInt(8);
      for (int k = 0; k < size; k++) {
        messages.add(Message.of(ids.get(random.nextInt(ids.size()))));
      }
      List<String> actual = new ArrayList<>();
      for (Outcome o : batch.consumer.consumeInOrder(messages)) {
        actual.add(SideLedger.describe(o));
      }
      List<String> expected = new ArrayList<>();
      for (Message m : messages) {
        Outcome o = single.consumer.consume(m);
        expected.add(SideLedger.describe(o));
        if (o.status() == Outcome.Status.IN_FLIGHT || o.status() == Outcome.Status.FAILED) {
          break;
        }
      }
      assertThat(actual)
          .as("step %d, batch %s", step, messages.stream().map(Message::id).toList())
          .containsExactlyElementsOf(expected);
      for (String id : ids) {
        assertThat(batch.record(id))
            .as("step %d: record of %s", step, id)
            .isEqualTo(single.record(id));
      }
    }
    for (String id : ids) {
      assertThat(batch.effects(id)).as("business rows of " + id).isEqualTo(single.effects(id));
    }
  }

  @Test
  void aClaimGivenBackIsGoneButOneTakenOverStays() throws Exception {
    JdbcInboxStore store = database().freshStore(BATCH_TABLE);
    BeginRequest a = new BeginRequest(CONSUMER, "given-back", CONFIG.lease(), 3, null);
    BeginRequest b = new BeginRequest(CONSUMER, "taken-over", CONFIG.lease(), 3, null);
    store.begin(new BeginRequest(CONSUMER, "exists", CONFIG.lease(), 3, null));
    List<BeginResult> claimed =
        store.claimNew(
            List.of(a, new BeginRequest(CONSUMER, "exists", CONFIG.lease(), 3, null), b));
    assertThat(claimed)
        .extracting(r -> r.record().messageId())
        .containsExactly("given-back", "taken-over");
    // The second claim's lease runs out and another instance takes the message over.
    database().shiftTime(BATCH_TABLE, Duration.ofMinutes(1));
    assertThat(store.begin(b).kind()).isEqualTo(BeginResult.Kind.TAKEN_OVER);

    store.unclaimFirst(List.of(claimed.get(0).claim(), claimed.get(1).claim()));

    assertThat(store.find(CONSUMER, "given-back")).isEmpty();
    assertThat(store.find(CONSUMER, "taken-over").orElseThrow().attempts()).isEqualTo(2);
    assertThat(store.begin(a).kind()).isEqualTo(BeginResult.Kind.CLAIMED);
  }
}
