package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.InboxStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link InboxStore} must show, written once against the store SPI and the
 * consumer API: the eight scenarios of the specification plus fencing, lease extension, payload
 * fingerprints, stored results, bad input and a concurrency stress test.
 *
 * <p>To test a store, subclass this class in the store's test sources and return a fresh, empty
 * store from {@link #newFixture()}. Time moves only through {@link StoreFixture#advanceTime}, so
 * the scenarios are deterministic on any store; stores that read a real clock (a database's {@code
 * now()}) stay correct because every lease here is many seconds long.
 */
public abstract class InboxStoreContractTest extends InboxStoreEdgeCases {

  /** For the subclass of each store. */
  protected InboxStoreContractTest() {}

  /**
   * Records in every state a refusal could disturb: PROCESSING (a live claim), PROCESSING after a
   * failure (with lastError and a retry time), DONE with a kept binary result and a payload hash,
   * and DEAD with lastError, under two consumers. Returned as read back from the store.
   */
  private List<InboxRecord> seedRecordsOfEveryState() {
    store().begin(new BeginRequest(CONSUMER, "keep-processing", LEASE, 5, "c".repeat(64)));
    store().fail(begin("keep-failed").claim(), "timeout talking to 'x'", Duration.ofSeconds(9));
    byte[] result = {0, 1, (byte) 0xFF, (byte) 0x80, '\'', '%'};
    store()
        .complete(
            store()
                .begin(new BeginRequest(CONSUMER, "keep-done", LEASE, 5, "d".repeat(64)))
                .claim(),
            result);
    store().markDead(begin("keep-dead").claim(), "poison: unparseable \u00e9 body");
    store().complete(begin("billing", "keep-done", 5).claim(), null);
    List<InboxRecord> seeded = new ArrayList<>();
    for (String[] key :
        new String[][] {
          {CONSUMER, "keep-processing"},
          {CONSUMER, "keep-failed"},
          {CONSUMER, "keep-done"},
          {CONSUMER, "keep-dead"},
          {"billing", "keep-done"}
        }) {
      seeded.add(store().find(key[0], key[1]).orElseThrow());
    }
    assertThat(seeded)
        .extracting(InboxRecord::state)
        .containsExactly(
            RecordState.PROCESSING,
            RecordState.PROCESSING,
            RecordState.DONE,
            RecordState.DEAD,
            RecordState.DONE);
    assertThat(seeded.get(2).result()).isEqualTo(result);
    assertThat(seeded.get(3).lastError()).contains("poison");
    return seeded;
  }

  /** Every seeded record reads back equal (all fields, result bytes included); nothing else. */
  private void assertUntouched(List<InboxRecord> seeded, String after) {
    for (InboxRecord r : seeded) {
      assertThat(store().find(r.consumer(), r.messageId()))
          .as("%s/%s after %s", r.consumer(), r.messageId(), after)
          .contains(r);
    }
    int processing = store().list(RecordState.PROCESSING, null, 100).size();
    int done = store().list(RecordState.DONE, null, 100).size();
    int dead = store().list(RecordState.DEAD, null, 100).size();
    assertThat(new int[] {processing, done, dead})
        .as("record counts after %s", after)
        .containsExactly(2, 2, 1);
  }

  @Test
  @DisplayName("bad ids are refused at every entry point; records of every state are untouched")
  void badIdsAreRefusedEverywhere() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Instant leaseEnd = store().currentTime().plus(LEASE);
    for (Map.Entry<String, String> e : invalidIds().entrySet()) {
      String what = e.getKey();
      String id = e.getValue();
      assertThatThrownBy(() -> begin(id)).as(what).isInstanceOf(InvalidMessageIdException.class);
      assertThatThrownBy(() -> Message.of(id))
          .as(what)
          .isInstanceOf(InvalidMessageIdException.class);
      assertThatThrownBy(() -> store().find(CONSUMER, id))
          .as(what)
          .isInstanceOf(InvalidMessageIdException.class);
      // A claim cannot even be constructed with a bad id, so no fenced op can receive one.
      assertThatThrownBy(() -> new Claim(CONSUMER, id, 1, leaseEnd))
          .as(what)
          .isInstanceOf(InvalidMessageIdException.class);
      assertUntouched(seeded, what);
    }
    // The refusal message says why, and stays printable and short even for a 10 KB id.
    assertThatThrownBy(() -> begin("k".repeat(10 * 1024)))
        .hasMessageContaining("limit is " + Message.MAX_ID_LENGTH)
        .satisfies(t -> assertThat(t.getMessage()).hasSizeLessThan(300));
    assertThatThrownBy(() -> begin("nul\0byte")).hasMessageContaining("U+0000");
    assertThatThrownBy(() -> begin("lone\uD800")).hasMessageContaining("surrogate");
    assertThatThrownBy(() -> begin("\u00A0\u00A0")).hasMessageContaining("blank");
  }

  @Test
  @DisplayName("bad consumer names are refused at every entry point; records are untouched")
  void badConsumerNamesAreRefusedEverywhere() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Instant leaseEnd = store().currentTime().plus(LEASE);
    Instant now = store().currentTime();
    Map<String, String> bad = new java.util.LinkedHashMap<>(invalidIds());
    bad.remove("256 chars");
    bad.put("129 chars", "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH + 1));
    for (Map.Entry<String, String> e : bad.entrySet()) {
      String what = e.getKey();
      String name = e.getValue();
      assertThatThrownBy(() -> begin(name, "keep-done", 5))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> store().find(name, "keep-done"))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      if (name != null) {
        // null means "every consumer" for list; any other bad name is refused.
        assertThatThrownBy(() -> store().list(RecordState.DONE, name, 10))
            .as(what)
            .isInstanceOf(InvalidConsumerNameException.class);
      }
      assertThatThrownBy(() -> store().prune(name, now.plus(Duration.ofDays(365))))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> new Claim(name, "keep-processing", 1, leaseEnd))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertThatThrownBy(() -> IdempotentConsumer.builder(name, store()))
          .as(what)
          .isInstanceOf(InvalidConsumerNameException.class);
      assertUntouched(seeded, what);
    }
    assertThatThrownBy(() -> begin("c".repeat(129), "m", 5))
        .hasMessageContaining("limit is " + IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
  }

  @Test
  @DisplayName("fenced ops with forged claims (wrong token, other consumer) change nothing")
  void forgedClaimsChangeNothing() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Instant leaseEnd = store().currentTime().plus(LEASE);
    List<Claim> forged =
        List.of(
            new Claim(CONSUMER, "keep-processing", 2, leaseEnd), // a token never issued
            new Claim(CONSUMER, "keep-processing", Integer.MAX_VALUE, leaseEnd),
            new Claim("billing", "keep-processing", 1, leaseEnd), // no such key
            new Claim(CONSUMER, "keep-done", 1, leaseEnd), // terminal
            new Claim(CONSUMER, "keep-dead", 1, leaseEnd),
            new Claim(CONSUMER, "'; DELETE FROM inbox; --", 1, leaseEnd));
    for (Claim claim : forged) {
      String what = claim.toString();
      List<Runnable> ops =
          List.of(
              () -> store().complete(claim, new byte[] {1}),
              () -> store().fail(claim, "forged", Duration.ofSeconds(1)),
              () -> store().extend(claim, LEASE),
              () -> store().markDead(claim, "forged"));
      for (Runnable op : ops) {
        assertThatThrownBy(op::run)
            .as(what)
            .isInstanceOfAny(UnknownClaimException.class, LeaseLostException.class);
      }
      assertUntouched(seeded, what);
    }
    assertThatThrownBy(() -> new Claim(CONSUMER, "keep-processing", 0, leaseEnd))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> new Claim(CONSUMER, "keep-processing", 1, null))
        .isInstanceOf(NullPointerException.class);
    assertUntouched(seeded, "claims with a bad token or lease");
  }

  @Test
  @DisplayName("out-of-range arguments are refused before anything changes")
  void outOfRangeArgumentsAreRefused() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    Claim live = seeded.get(0).toClaim();
    Map<String, Runnable> refused = new java.util.LinkedHashMap<>();
    refused.put("extend by zero", () -> store().extend(live, Duration.ZERO));
    refused.put("extend by a negative lease", () -> store().extend(live, Duration.ofSeconds(-1)));
    refused.put(
        "fail with a negative delay", () -> store().fail(live, "x", Duration.ofSeconds(-1)));
    refused.put(
        "complete with a result over the limit",
        () -> store().complete(live, new byte[InboxRecord.MAX_RESULT_BYTES + 1]));
    refused.put("list with a negative limit", () -> store().list(RecordState.DONE, null, -1));
    for (Map.Entry<String, Runnable> e : refused.entrySet()) {
      // Every refused value is an InvalidArgumentException, from the core types and stores alike.
      assertThatThrownBy(e.getValue()::run)
          .as(e.getKey())
          .isInstanceOf(InvalidArgumentException.class);
      assertUntouched(seeded, e.getKey());
    }
    // Values checked by the core types themselves are always InvalidArgumentException.
    assertThatThrownBy(() -> new BeginRequest(CONSUMER, "m-bad", Duration.ZERO, 5, null))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> new BeginRequest(CONSUMER, "m-bad", LEASE, 0, null))
        .isExactlyInstanceOf(InvalidArgumentException.class);
    assertUntouched(seeded, "bad begin requests");

    // And through the consumer API, where the handler sees the refusal and can carry on.
    List<Throwable> seen = new CopyOnWriteArrayList<>();
    IdempotentConsumer c =
        consumer(
                "refusals",
                (message, attempt) -> {
                  for (Runnable bad :
                      List.<Runnable>of(
                          () -> attempt.extendLease(Duration.ZERO),
                          () -> attempt.extendLease(Duration.ofSeconds(-1)),
                          () -> attempt.keepResult(new byte[InboxRecord.MAX_RESULT_BYTES + 1]))) {
                    try {
                      bad.run();
                    } catch (RuntimeException e) {
                      seen.add(e);
                    }
                  }
                })
            .build();
    assertThat(c.consume(Message.of("m-refusals")).status()).isEqualTo(Status.APPLIED);
    assertThat(seen)
        .hasSize(3)
        .allSatisfy(t -> assertThat(t).isExactlyInstanceOf(InvalidArgumentException.class));
    assertThat(store().find("refusals", "m-refusals").orElseThrow().result()).isNull();
  }

  @Test
  @DisplayName("a payload mismatch is refused for DONE, DEAD and PROCESSING; records untouched")
  void payloadMismatchLeavesEveryRecordAlone() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    for (String id : List.of("keep-processing", "keep-done")) {
      assertThatThrownBy(
              () -> store().begin(new BeginRequest(CONSUMER, id, LEASE, 5, "e".repeat(64))))
          .as(id)
          .isInstanceOf(PayloadMismatchException.class)
          .hasMessageContaining(id);
      assertUntouched(seeded, "payload mismatch on " + id);
    }
    // No hash recorded, or none given: there is nothing to compare, so no mismatch.
    assertThat(begin("keep-done").kind()).isEqualTo(Kind.DUPLICATE);
    assertThat(
            store().begin(new BeginRequest(CONSUMER, "keep-dead", LEASE, 5, "e".repeat(64))).kind())
        .isEqualTo(Kind.DEAD);
    assertUntouched(seeded, "begins without a mismatch");
  }

  @Test
  @DisplayName("unusual but valid ids round-trip exactly, for begin, find, list and consume")
  void unusualValidIdsRoundTrip() {
    List<InboxRecord> seeded = seedRecordsOfEveryState();
    String consumer = "unusual";
    List<String> ids = unusualValidIds();
    for (String id : ids) {
      BeginResult first = begin(consumer, id, 5);
      assertThat(first.kind()).as(id).isEqualTo(Kind.CLAIMED);
      assertThat(first.record().messageId()).as(id).isEqualTo(id);
      store().complete(first.claim(), id.getBytes(StandardCharsets.UTF_8));
    }
    for (String id : ids) {
      InboxRecord r = store().find(consumer, id).orElseThrow();
      assertThat(r.messageId()).as(id).isEqualTo(id);
      assertThat(r.result()).as(id).isEqualTo(id.getBytes(StandardCharsets.UTF_8));
      assertThat(begin(consumer, id, 5).kind()).as(id).isEqualTo(Kind.DUPLICATE);
    }
    // No two ids collapsed into one row (by collation, trimming or normalisation).
    assertThat(store().list(RecordState.DONE, consumer, 100))
        .extracting(InboxRecord::messageId)
        .containsExactlyInAnyOrderElementsOf(ids);
    // Ids that differ only in what a lax store might ignore are distinct keys.
    for (String near :
        List.of(
            "' or '1'='1",
            "%_match_%_",
            "leading and trailing spaces",
            "é-combining",
            "x".repeat(Message.MAX_ID_LENGTH - 1))) {
      assertThat(store().find(consumer, near)).as(near).isEmpty();
    }
    // Through the consumer API too: the handler sees the exact id, once.
    List<String> seen = new CopyOnWriteArrayList<>();
    IdempotentConsumer c = consumer("unusual-api", (m, a) -> seen.add(m.id())).build();
    for (String id : ids) {
      assertThat(c.consume(Message.of(id)).status()).as(id).isEqualTo(Status.APPLIED);
      assertThat(c.consume(Message.of(id)).status()).as(id).isEqualTo(Status.DUPLICATE);
    }
    assertThat(seen).containsExactlyElementsOf(ids);
    for (InboxRecord r : seeded) {
      assertThat(store().find(r.consumer(), r.messageId())).contains(r);
    }
  }

  @Test
  @DisplayName("ids differing only by trailing spaces are distinct keys; padded names are refused")
  void trailingSpacesAreSignificant() {
    // A PAD SPACE collation (MySQL/MariaDB utf8mb4_bin) compares 'pad' and 'pad ' as equal, which
    // would report a different message as a DUPLICATE of another and silently drop its effect.
    List<String> ids = List.of("pad", "pad ", "pad  ", "pad\u00A0");
    for (String id : ids) {
      BeginResult first = begin(id);
      assertThat(first.kind()).as("'%s'", id).isEqualTo(Kind.CLAIMED);
      store().complete(first.claim(), id.getBytes(StandardCharsets.UTF_8));
    }
    for (String id : ids) {
      assertThat(store().find(CONSUMER, id).orElseThrow().result())
          .as("'%s'", id)
          .isEqualTo(id.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(store().list(RecordState.DONE, CONSUMER, 10)).hasSize(ids.size());
    // A consumer name is typed by people: " billing" or "billing " would silently be a second
    // consumer, so every store refuses surrounding whitespace instead of storing it.
    store().complete(begin("billing", "m-1", 5).claim(), null);
    assertThatThrownBy(() -> begin("billing ", "m-1", 5))
        .isInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("whitespace");
    assertThatThrownBy(() -> store().find(" billing", "m-1"))
        .isInstanceOf(InvalidConsumerNameException.class);
  }

  @Test
  @DisplayName("unusual but valid consumer names are independent keys, stored verbatim")
  void unusualValidConsumerNames() {
    List<String> names =
        List.of(
            "'; DROP TABLE inbox; --",
            "100%_",
            "%",
            "billing\\eu",
            "计费-服务",
            "émoji-\uD83D\uDE00",
            "c".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH));
    for (String name : names) {
      store().complete(begin(name, "m-shared", 5).claim(), null);
    }
    for (String name : names) {
      assertThat(store().find(name, "m-shared").orElseThrow().consumer()).as(name).isEqualTo(name);
      assertThat(begin(name, "m-shared", 5).kind()).as(name).isEqualTo(Kind.DUPLICATE);
      assertThat(store().list(RecordState.DONE, name, 10)).as(name).hasSize(1);
    }
    // A LIKE-style wildcard in a name must not match other consumers when pruning.
    advance(Duration.ofHours(1));
    assertThat(store().prune("%", store().currentTime())).isEqualTo(1);
    assertThat(store().find("100%_", "m-shared")).isPresent();
    assertThat(store().find(names.get(0), "m-shared")).isPresent();
  }

  @Test
  @DisplayName("ids with SQL meta-characters and unicode are stored and found verbatim")
  void unusualButValidIds() {
    List<String> ids =
        List.of(
            "'; DROP TABLE inbox; --",
            "a\"b\\c%_*?",
            "订单-2026-10-17",
            "emoji-\uD83D\uDE00",
            "x".repeat(Message.MAX_ID_LENGTH));
    for (String id : ids) {
      store().complete(begin(id).claim(), null);
    }
    for (String id : ids) {
      assertThat(store().find(CONSUMER, id))
          .as(id)
          .get()
          .extracting(InboxRecord::messageId)
          .isEqualTo(id);
      assertThat(begin(id).kind()).as(id).isEqualTo(Kind.DUPLICATE);
    }
    assertThat(store().list(RecordState.DONE, CONSUMER, 100)).hasSize(ids.size());
  }

  @Test
  @DisplayName("list filters by state and consumer, oldest first, up to the limit")
  void listByState() {
    begin("p-1");
    advance(Duration.ofSeconds(1));
    begin("billing", "p-2", 5);
    advance(Duration.ofSeconds(1));
    begin("p-3");
    store().complete(begin("d-1").claim(), null);

    assertThat(store().list(RecordState.PROCESSING, null, 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("p-1", "p-2", "p-3");
    assertThat(store().list(RecordState.PROCESSING, CONSUMER, 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("p-1", "p-3");
    assertThat(store().list(RecordState.PROCESSING, null, 2)).hasSize(2);
    assertThat(store().list(RecordState.DONE, null, 10))
        .extracting(InboxRecord::messageId)
        .containsExactly("d-1");
    assertThat(store().list(RecordState.DEAD, null, 10)).isEmpty();
  }

  @Test
  @DisplayName("records carry their timestamps in the store's clock")
  void recordTimestamps() {
    Instant before = store().currentTime();
    BeginResult begun = begin("m-ts");
    InboxRecord r = begun.record();
    assertThat(r.createdAt()).isAfterOrEqualTo(before.minusSeconds(1));
    assertThat(r.updatedAt()).isEqualTo(r.createdAt());
    assertThat(r.leaseUntil()).isAfterOrEqualTo(r.createdAt().plus(LEASE).minusSeconds(1));
    assertThat(store().find(CONSUMER, "m-ts")).contains(r);
    advance(Duration.ofSeconds(3));
    // A store may move time by shifting stored timestamps: read them back after the move.
    InboxRecord moved = store().find(CONSUMER, "m-ts").orElseThrow();
    InboxRecord done = store().complete(begun.claim(), null);
    assertThat(done.leaseUntil()).isNull();
    assertThat(done.createdAt()).isEqualTo(moved.createdAt());
    assertThat(done.updatedAt()).isAfterOrEqualTo(moved.updatedAt().plusSeconds(3));
    assertThat(store().find(CONSUMER, "m-ts")).contains(done);
  }
}
