package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.jdbc.consumer.BatchItemFailedException;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link OneCommitConsumer#consumeBatch} answers every delivery as {@link
 * OneCommitConsumer#consume(Message)} called once per delivery, in delivery order, would. Each seed
 * plays one random sequence twice, step by step: as batches on one table and as sequential single
 * calls on another, and compares every outcome (status, attempts), then every record (state,
 * attempts, whether it has an error), the business rows per id and the dead letters. Batches hold
 * repeated ids, poison messages (always fail), flaky ones (fail their first attempt), moves of the
 * clock past the backoff, and, on databases that bound a lock wait, an id held by a second consumer
 * whose handler waits on a latch while the batch meets it (the batch must answer IN_FLIGHT for it
 * alone). A failing seed is named; {@code -Dinbox.ocb.seed=N} replays only that one.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.jdbc.TestDatabases#selected")
class OneCommitBatchModelTest {

  static final String BATCH_TABLE = "inbox_ocb_batch";
  static final String SINGLE_TABLE = "inbox_ocb_single";
  static final String EFFECTS = "ocb_effects";
  static final String CONSUMER = "model";
  static final int POOL = 12;
  static final int STEPS = 14;

  /** How the batch side's handler is given. */
  enum HandlerKind {
    /** A per-message handler: each failure is named by the message whose handler threw. */
    PER_MESSAGE,
    /** A batch handler naming every failing message in a {@link BatchItemFailedException}. */
    BATCH_NAMING,
    /** A batch handler throwing a plain exception at the first bad message: bisection. */
    BATCH_UNNAMED
  }

  @Parameter TestDatabases.Registered registered;

  static ExecutorService holders;

  @BeforeAll
  static void startHolders() {
    holders = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stopHolders() {
    holders.shutdownNow();
  }

  TestDatabase database() {
    return registered.get();
  }

  SideLedger ledger;

  @BeforeEach
  void effectsTable() throws SQLException {
    ledger = new SideLedger(database(), EFFECTS);
  }

  /** Whether the database can bound a claim's lock wait, so a held id can be met. */
  boolean canHold() {
    return !database().oneWriterAtATime();
  }

  int seeds() {
    return database().modelSeeds() >= 200 ? 30 : 20;
  }

  @ParameterizedTest
  @EnumSource(HandlerKind.class)
  void batchesAnswerAsSequentialSingleCalls(HandlerKind kind) throws Exception {
    playSeeds(kind, false);
  }

  /**
   * {@link OneCommitConsumer#consumeInOrder} answers as single calls in order that stop at the
   * first delivery that does not finish, and consumes nothing after it.
   */
  @ParameterizedTest
  @EnumSource(HandlerKind.class)
  void inOrderBatchesAnswerAsSingleCallsThatStopAtTheFirstUnfinished(HandlerKind kind)
      throws Exception {
    playSeeds(kind, true);
  }

  void playSeeds(HandlerKind kind, boolean inOrder) throws Exception {
    String only = System.getProperty("inbox.ocb.seed");
    List<Long> seeds = new ArrayList<>();
    if (only != null) {
      seeds.add(Long.parseLong(only));
    } else {
      for (long s = 1; s <= seeds(); s++) {
        seeds.add(s);
      }
    }
    for (long seed : seeds) {
      try {
        playSeed(kind, inOrder, seed);
      } catch (AssertionError | Exception e) {
        throw new AssertionError(
            "seed "
                + seed
                + " ("
                + kind
                + (inOrder ? ", in order" : "")
                + ") failed; replay with -Dinbox.ocb.seed="
                + seed,
            e);
      }
    }
  }

  static boolean poison(String id) {
    return id.startsWith("p");
  }

  static boolean flaky(String id) {
    return id.startsWith("f");
  }

  static String idOf(int n) {
    return (n % 5 == 1 ? "p" : n % 4 == 2 ? "f" : "m") + n;
  }

  /** One side of the comparison: a store on its own table and a one-commit consumer on it. */
  final class Side {
    final String tag;
    final String table;
    final JdbcInboxStore store;
    final List<String> deadLetters = new CopyOnWriteArrayList<>();
    final OneCommitConsumer consumer;

    Side(String tag, String table, HandlerKind kind) throws SQLException {
      this.tag = tag;
      this.table = table;
      this.store = database().freshStore(table);
      this.consumer = builder(kind, null).build();
    }

    OneCommitConsumer.Builder builder(HandlerKind kind, CountDownLatch[] hold) {
      OneCommitConsumer.Builder b =
          OneCommitConsumer.builder(CONSUMER, store)
              .config(
                  InboxConfig.custom()
                      .lease(Duration.ofSeconds(30))
                      .retryPolicy(
                          RetryPolicy.custom()
                              .maxAttempts(3)
                              .initialDelay(Duration.ofSeconds(1))
                              .multiplier(1)
                              .jitter(0)
                              .build())
                      .build())
              .deadLetterHandler((m, r) -> deadLetters.add(m.id()));
      if (canHold()) {
        b.lockTimeout(Duration.ofMillis(200));
      }
      if (hold != null) {
        return b.handler(
            (m, attempt, c) -> {
              hold[0].countDown();
              if (!hold[1].await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released " + m.id());
              }
              effect(c, m);
            });
      }
      return switch (kind) {
        case PER_MESSAGE ->
            b.handler(
                (m, attempt, c) -> {
                  effect(c, m);
                  if (poison(m.id()) || (flaky(m.id()) && attempt.number() == 1)) {
                    throw new IllegalArgumentException("bad " + m.id());
                  }
                });
        case BATCH_NAMING ->
            b.batchHandler(
                (messages, c) -> {
                  List<String> bad = new ArrayList<>();
                  for (Message m : messages) {
                    effect(c, m);
                    if (poison(m.id())) {
                      bad.add(m.id());
                    }
                  }
                  if (!bad.isEmpty()) {
                    throw new BatchItemFailedException(
                        bad, new IllegalArgumentException("bad " + bad));
                  }
                });
        case BATCH_UNNAMED ->
            b.batchHandler(
                (messages, c) -> {
                  for (Message m : messages) {
                    effect(c, m);
                    if (poison(m.id())) {
                      throw new IllegalArgumentException("bad " + m.id());
                    }
                  }
                });
      };
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

    /** Holds {@code id}: a second consumer's handler runs for it and waits for {@code release}. */
    CompletableFuture<Outcome> hold(String id, CountDownLatch release) throws Exception {
      CountDownLatch entered = new CountDownLatch(1);
      OneCommitConsumer holder =
          builder(HandlerKind.PER_MESSAGE, new CountDownLatch[] {entered, release}).build();
      CompletableFuture<Outcome> done =
          CompletableFuture.supplyAsync(() -> holder.consume(Message.of(id)), holders);
      // The handler runs only after the holder inserted the record, so its lock is held now.
      while (!entered.await(100, TimeUnit.MILLISECONDS)) {
        if (done.isDone()) {
          throw new AssertionError("holder of " + id + " ended without running: " + done.get());
        }
      }
      return done;
    }
  }

  void playSeed(HandlerKind kind, boolean inOrder, long seed) throws Exception {
    ledger.clear();
    Random random = new Random(seed);
    Side batch = new Side("batch", BATCH_TABLE, kind);
    // The reference: single calls with a per-message handler. Batch handlers see no attempt
    // number, so with them the pool has no flaky ids and the handlers fail the same messages.
    Side single = new Side("single", SINGLE_TABLE, HandlerKind.PER_MESSAGE);
    int holdAt = canHold() && seed % 5 == 0 ? random.nextInt(STEPS) : -1;
    List<String> ids = new ArrayList<>();
    for (int n = 0; n < POOL; n++) {
      ids.add(kind == HandlerKind.PER_MESSAGE ? idOf(n) : idOf(n).replace('f', 'm'));
    }
    for (int step = 0; step < STEPS; step++) {
      if (random.nextInt(5) == 0) {
        database().shiftTime(BATCH_TABLE, Duration.ofMinutes(1));
        database().shiftTime(SINGLE_TABLE, Duration.ofMinutes(1));
        continue;
      }
      List<Message> messages = new ArrayList<>();
      int size = 1 + random.nextInt(8);
      for (int k = 0; k < size; k++) {
        messages.add(Message.of(ids.get(random.nextInt(ids.size()))));
      }
      if (step != holdAt) {
        compare(step, messages, batch, single, inOrder);
        continue;
      }
      String held = "h" + seed;
      int heldAt = random.nextInt(messages.size() + 1);
      messages.add(heldAt, Message.of(held));
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<Outcome> batchHolder = batch.hold(held, release);
      CompletableFuture<Outcome> singleHolder = single.hold(held, release);
      List<Outcome> answered = compare(step, messages, batch, single, inOrder);
      if (answered.size() > heldAt) { // in order, an earlier failure may stop before it
        assertThat(answered.get(heldAt).status())
            .as("the held id's answer")
            .isEqualTo(Outcome.Status.IN_FLIGHT);
      }
      release.countDown();
      assertThat(batchHolder.get(60, TimeUnit.SECONDS).status())
          .isEqualTo(singleHolder.get(60, TimeUnit.SECONDS).status());
      ids.add(held);
    }
    for (String id : ids) {
      assertThat(batch.record(id)).as("record of " + id).isEqualTo(single.record(id));
      assertThat(batch.effects(id)).as("business rows of " + id).isEqualTo(single.effects(id));
      assertThat(batch.effects(id)).as("business rows of " + id).isLessThanOrEqualTo(1);
    }
    assertThat(batch.deadLetters).containsExactlyInAnyOrderElementsOf(single.deadLetters);
  }

  /** Plays one step on both sides and compares the answers; returns the batch side's. */
  List<Outcome> compare(
      int step, List<Message> messages, Side batch, Side single, boolean inOrder) {
    List<Outcome> batched =
        inOrder ? batch.consumer.consumeInOrder(messages) : batch.consumer.consumeBatch(messages);
    List<String> expected = new ArrayList<>();
    for (Message m : messages) {
      Outcome o = single.consumer.consume(m);
      expected.add(SideLedger.describe(o));
      if (inOrder
          && (o.status() == Outcome.Status.IN_FLIGHT || o.status() == Outcome.Status.FAILED)) {
        break;
      }
    }
    List<String> actual = batched.stream().map(SideLedger::describe).toList();
    assertThat(actual)
        .as("step %d, batch %s", step, messages.stream().map(Message::id).toList())
        .containsExactlyElementsOf(expected);
    return batched;
  }
}
