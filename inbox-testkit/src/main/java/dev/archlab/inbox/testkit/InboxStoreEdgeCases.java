package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store contract beyond the eight scenarios: per-consumer prune and independence, lease
 * extension, unknown claims, payload fingerprints, stored results, bounded errors, bad input and
 * the concurrency tests. Part of {@link InboxStoreContractTest}, which store authors subclass.
 */
public abstract class InboxStoreEdgeCases extends InboxStoreScenarios {

  /** For subclasses only. */
  protected InboxStoreEdgeCases() {}

  // ---- beyond the eight scenarios ------------------------------------------------------------

  @Test
  @DisplayName("prune of one consumer leaves the other consumers' records alone")
  void prunePerConsumer() {
    store().complete(begin("billing", "m-1", 5).claim(), null);
    store().complete(begin("shipping", "m-1", 5).claim(), null);
    advance(Duration.ofHours(2));
    assertThat(store().prune("billing", store().currentTime())).isEqualTo(1);
    assertThat(store().find("billing", "m-1")).isEmpty();
    assertThat(store().find("shipping", "m-1")).isPresent();
  }

  @Test
  @DisplayName("the same message id for two consumers is two independent records")
  void consumersAreIndependent() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer billing = consumer("billing", counting(calls)).build();
    IdempotentConsumer shipping = consumer("shipping", counting(calls)).build();
    assertThat(billing.consume(Message.of("evt-7")).status()).isEqualTo(Status.APPLIED);
    assertThat(shipping.consume(Message.of("evt-7")).status()).isEqualTo(Status.APPLIED);
    assertThat(billing.consume(Message.of("evt-7")).status()).isEqualTo(Status.DUPLICATE);
    assertThat(calls).hasValue(2);
  }

  @Test
  @DisplayName("extend pushes the lease out: no takeover while extended, takeover after")
  void leaseExtension() {
    Claim claim = begin("m-long").claim();
    advance(LEASE.minusSeconds(5));
    // The lease as the store holds it now: fixtures may move time by shifting stored times back,
    // so the claim's own leaseUntil is not what the extension is measured against.
    Instant leaseBefore = store().find(CONSUMER, "m-long").orElseThrow().leaseUntil();
    Claim extended = store().extend(claim, LEASE);
    assertThat(extended.fencingToken()).isEqualTo(claim.fencingToken());
    assertThat(extended.leaseUntil()).isAfter(leaseBefore);
    advance(Duration.ofSeconds(10)); // past the original lease, inside the extension
    assertThat(begin("m-long").kind()).isEqualTo(Kind.IN_FLIGHT);
    advance(LEASE);
    BeginResult takeover = begin("m-long");
    assertThat(takeover.kind()).isEqualTo(Kind.TAKEN_OVER);
    assertThatThrownBy(() -> store().extend(extended, LEASE))
        .isInstanceOf(LeaseLostException.class);
  }

  @Test
  @DisplayName("a handler that extends its own lease keeps its claim")
  void handlerExtendsItsLease() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer other = consumer(CONSUMER, counting(calls)).build();
    IdempotentConsumer slow =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  for (int i = 0; i < 3; i++) {
                    advance(LEASE.minusSeconds(5));
                    attempt.extendLease(LEASE);
                    assertThat(other.consume(message).status()).isEqualTo(Status.IN_FLIGHT);
                  }
                })
            .build();
    assertThat(slow.consume(Message.of("m-slow")).status()).isEqualTo(Status.APPLIED);
    assertThat(calls).hasValue(0);
  }

  @Test
  @DisplayName("fenced operations on a record that does not exist are unknown claims")
  void unknownClaims() {
    Claim ghost = new Claim(CONSUMER, "never-begun", 1, store().currentTime().plus(LEASE));
    assertThatThrownBy(() -> store().complete(ghost, null))
        .isInstanceOf(UnknownClaimException.class)
        .hasMessageContaining("never-begun");
    assertThatThrownBy(() -> store().fail(ghost, "x", Duration.ZERO))
        .isInstanceOf(UnknownClaimException.class);
    assertThatThrownBy(() -> store().extend(ghost, LEASE))
        .isInstanceOf(UnknownClaimException.class);
    assertThatThrownBy(() -> store().markDead(ghost, "x"))
        .isInstanceOf(UnknownClaimException.class);
    assertThat(store().find(CONSUMER, "never-begun")).isEmpty();

    Claim real = begin("m-real").claim();
    Claim forged = new Claim(CONSUMER, "m-real", 7, real.leaseUntil());
    assertThatThrownBy(() -> store().complete(forged, null))
        .isInstanceOf(UnknownClaimException.class);
    assertThat(store().find(CONSUMER, "m-real").orElseThrow().state())
        .isEqualTo(RecordState.PROCESSING);
  }

  @Test
  @DisplayName("same id with another payload is refused, never applied; the record is unchanged")
  void payloadMismatchIsRefused() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder(CONSUMER, store())
            .handler(counting(calls))
            .config(config(5).fingerprintPayloads(true).build())
            .build();
    byte[] original = "{\"amount\":10}".getBytes(StandardCharsets.UTF_8);
    byte[] altered = "{\"amount\":99}".getBytes(StandardCharsets.UTF_8);
    assertThat(c.consume(Message.of("m-pay", "payments", original)).status())
        .isEqualTo(Status.APPLIED);
    InboxRecord before = store().find(CONSUMER, "m-pay").orElseThrow();
    assertThat(before.payloadHash()).hasSize(64);

    assertThatThrownBy(() -> c.consume(Message.of("m-pay", "payments", altered)))
        .isInstanceOf(PayloadMismatchException.class)
        .hasMessageContaining("m-pay");
    assertThat(store().find(CONSUMER, "m-pay")).contains(before);
    assertThat(c.consume(Message.of("m-pay", "payments", original)).status())
        .isEqualTo(Status.DUPLICATE);
    assertThat(calls).hasValue(1);

    // A mismatch on an in-flight record is refused too, and does not disturb the owner.
    BeginResult owner =
        store().begin(new BeginRequest(CONSUMER, "m-pay-2", LEASE, 5, "a".repeat(64)));
    assertThatThrownBy(
            () -> store().begin(new BeginRequest(CONSUMER, "m-pay-2", LEASE, 5, "b".repeat(64))))
        .isInstanceOf(PayloadMismatchException.class);
    store().complete(owner.claim(), null);
  }

  @Test
  @DisplayName("a duplicate gets the first run's stored result back")
  void storedResultAnswersDuplicates() {
    AtomicInteger calls = new AtomicInteger();
    byte[] receipt = "receipt-42".getBytes(StandardCharsets.UTF_8);
    IdempotentConsumer c =
        consumer(
                CONSUMER,
                (message, attempt) -> {
                  calls.incrementAndGet();
                  attempt.keepResult(receipt);
                })
            .build();
    Outcome applied = c.consume(Message.of("m-result"));
    Outcome duplicate = c.consume(Message.of("m-result"));
    assertThat(applied.result()).hasValueSatisfying(r -> assertThat(r).isEqualTo(receipt));
    assertThat(duplicate.status()).isEqualTo(Status.DUPLICATE);
    assertThat(duplicate.result()).hasValueSatisfying(r -> assertThat(r).isEqualTo(receipt));
    assertThat(calls).hasValue(1);

    // Binary results survive byte for byte.
    byte[] binary = new byte[256];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) i;
    }
    store().complete(begin("m-binary").claim(), binary);
    assertThat(store().find(CONSUMER, "m-binary").orElseThrow().result()).isEqualTo(binary);
  }

  @Test
  @DisplayName("a long error text is bounded, not refused")
  void longErrorsAreBounded() {
    Claim claim = begin("m-error").claim();
    String huge = "é".repeat(InboxRecord.MAX_ERROR_LENGTH * 3);
    store().fail(claim, huge, Duration.ofSeconds(1));
    assertThat(store().find(CONSUMER, "m-error").orElseThrow().lastError())
        .hasSizeLessThanOrEqualTo(InboxRecord.MAX_ERROR_LENGTH)
        .startsWith("éééé");
  }

  @Test
  @DisplayName("bad ids and consumer names are refused with specific errors; nothing changes")
  void badInputIsRefused() {
    store().complete(begin("keep-me").claim(), null);
    InboxRecord kept = store().find(CONSUMER, "keep-me").orElseThrow();
    List<String> badIds =
        Arrays.asList(
            null,
            "",
            "   ",
            "x".repeat(Message.MAX_ID_LENGTH + 1),
            "nul\0byte",
            "lone\uD800surrogate");
    for (String id : badIds) {
      assertThatThrownBy(() -> begin(id))
          .as(String.valueOf(id))
          .isInstanceOf(InvalidMessageIdException.class);
      assertThatThrownBy(() -> store().find(CONSUMER, id))
          .as(String.valueOf(id))
          .isInstanceOf(InvalidMessageIdException.class);
    }
    List<String> badNames =
        Arrays.asList(null, "", "\t", "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH + 1));
    for (String name : badNames) {
      assertThatThrownBy(() -> begin(name, "m-1", 5))
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> store().prune(name, store().currentTime()))
          .isInstanceOf(InvalidConsumerNameException.class);
    }
    assertThat(store().find(CONSUMER, "keep-me")).contains(kept);
    assertThat(store().list(RecordState.PROCESSING, null, 10)).isEmpty();
  }

  /**
   * Ids that must be refused, each with a description for assertion messages.
   *
   * @return description to id, in a stable order; one id is null
   */
  protected static Map<String, String> invalidIds() {
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put("null", null);
    bad.put("empty", "");
    bad.put("spaces", "   ");
    bad.put("tabs and newlines", "\t\r\n");
    bad.put("no-break spaces", "\u00A0\u2007\u202F");
    bad.put("ideographic and em spaces", "\u3000\u2003");
    bad.put("256 chars", "x".repeat(Message.MAX_ID_LENGTH + 1));
    bad.put("10 KB", "k".repeat(10 * 1024));
    bad.put("NUL", "nul\0byte");
    bad.put("trailing NUL", "m-1\0");
    bad.put("control char", "bell\u0007");
    bad.put("DEL", "del\u007F");
    bad.put("C1 control", "c1\u0085");
    bad.put("lone high surrogate", "lone\uD800surrogate");
    bad.put("lone low surrogate", "lone\uDC00");
    bad.put("reversed pair", "\uDE00\uD83D");
    bad.put("high surrogate at end", "end\uD83D");
    return bad;
  }

  /**
   * Ids that look dangerous or unusual but are valid and must round-trip exactly.
   *
   * @return the ids
   */
  protected static List<String> unusualValidIds() {
    return List.of(
        "'; DROP TABLE inbox; --",
        "' OR '1'='1",
        "\"quoted\" `backticked` [bracketed]",
        "back\\slash\\\\double",
        "100%_match_%_",
        "%",
        "_",
        "*?$1;:/#&=+",
        "emoji-\uD83D\uDE00\uD83D\uDC4D\uD83C\uDFFD",
        "订单-2026-10-17",
        "注文・주문・заказ",
        "שלום-עולם-\u200F-مرحبا",
        "e\u0301-combining",
        " leading and trailing spaces ",
        "PAD-upper",
        "pad-upper",
        "\u00A0x\u00A0",
        "x".repeat(Message.MAX_ID_LENGTH),
        "\uD83D\uDE00".repeat(Message.MAX_ID_LENGTH / 2),
        "中".repeat(Message.MAX_ID_LENGTH));
  }

  // ---- concurrency -----------------------------------------------------------------------------

  @Test
  @Timeout(60)
  @DisplayName("N concurrent begins for one key: exactly one is claimed")
  void concurrentBeginsClaimOnce() throws Exception {
    for (int round = 0; round < 20; round++) {
      String id = "race-" + round;
      int claimed = 0;
      for (BeginResult r : race(workerThreads(), () -> begin(id))) {
        if (r.claimed()) {
          claimed++;
        } else {
          assertThat(r.kind()).isEqualTo(Kind.IN_FLIGHT);
        }
      }
      assertThat(claimed).as("claims for %s", id).isEqualTo(1);
    }
  }

  @Test
  @Timeout(120)
  @DisplayName("stress: thousands of ids, many duplicates each, many threads; one effect per id")
  void concurrentStress() throws Exception {
    int ids = stressMessageCount();
    int copies = 5;
    List<String> deliveries = new ArrayList<>(ids * copies);
    for (int i = 0; i < ids; i++) {
      for (int c = 0; c < copies; c++) {
        deliveries.add("stress-" + i);
      }
    }
    Collections.shuffle(deliveries, new Random(42));
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    Map<Status, AtomicInteger> statuses = new ConcurrentHashMap<>();
    IdempotentConsumer c =
        consumer(
                CONSUMER,
                (message, attempt) ->
                    effects
                        .computeIfAbsent(message.id(), k -> new AtomicInteger())
                        .incrementAndGet())
            .build();
    int workers = workerThreads();
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        futures.add(
            pool.submit(
                () -> {
                  String id;
                  while ((id = queue.poll()) != null) {
                    Outcome o = c.consume(Message.of(id));
                    statuses
                        .computeIfAbsent(o.status(), k -> new AtomicInteger())
                        .incrementAndGet();
                    if (o.status() == Status.IN_FLIGHT) {
                      queue.add(id); // the broker redelivers later
                      Thread.onSpinWait();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(110, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(effects).hasSize(ids);
    assertThat(effects.values()).allMatch(n -> n.get() == 1, "every id applied exactly once");
    assertThat(statuses.get(Status.APPLIED)).hasValue(ids);
    assertThat(statuses.get(Status.DUPLICATE).get()).isEqualTo(ids * (copies - 1));
    assertThat(store().list(RecordState.DONE, CONSUMER, ids + 10)).hasSize(ids);
    assertThat(store().list(RecordState.PROCESSING, CONSUMER, 10)).isEmpty();
  }
}
