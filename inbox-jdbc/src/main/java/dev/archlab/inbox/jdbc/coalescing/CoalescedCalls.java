package dev.archlab.inbox.jdbc.coalescing;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.JdbcInboxStore.BatchCompletion;
import dev.archlab.inbox.jdbc.coalescing.GroupCommit.Pending;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.jdbc.internal.InboxBatches;
import dev.archlab.inbox.jdbc.internal.InboxTable;
import dev.archlab.inbox.jdbc.internal.JdbcRunner;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.RecordStateMachine;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The store's {@code begin} and plain {@code complete} (no result kept) when coalescing is on:
 * concurrent calls are gathered by a {@link GroupCommit} and sent as one batch claim (one multi-row
 * insert and one read, in autocommit) or one fenced batch completion (one statement, one commit).
 *
 * <p>Each caller gets what its own call would have answered at the moment of the flush: a claim,
 * the decision on the existing record, its own {@code PayloadMismatchException}, {@code
 * LeaseLostException} or {@code UnknownClaimException}. Two requests for one id in one flush are
 * settled one after the other (the first by the batch, the repeat by the single-message path), so
 * one claims and the other is IN_FLIGHT. A flush that fails gives its exception (a copy per caller,
 * of the same type for a {@link StoreUnavailableException}) to every caller not yet answered;
 * callers whose request had committed and been read before the failure keep their answers, as their
 * own call would have. A transient failure retries only the requests not yet answered, so a retry
 * never turns a committed claim into IN_FLIGHT for its own caller.
 *
 * <p>Built by {@link dev.archlab.inbox.jdbc.JdbcInboxStore} when its builder turns coalescing on;
 * its constructor takes the store's internal parts, so applications do not build one.
 */
public final class CoalescedCalls {

  private final JdbcRunner jdbc;
  private final InboxTable rows;
  private final InboxBatches batches;
  private final GroupCommit<BeginRequest, BeginResult> begins;
  private final GroupCommit<Claim, InboxRecord> completes;

  /** Coalesces the calls of the store whose runner, row and batch operations these are. */
  public CoalescedCalls(JdbcRunner jdbc, InboxTable rows, InboxBatches batches) {
    this.jdbc = jdbc;
    this.rows = rows;
    this.batches = batches;
    this.begins =
        new GroupCommit<>(InboxBatches.MAX_BATCH, this::flushBegins, CoalescedCalls::copy);
    this.completes =
        new GroupCommit<>(InboxBatches.MAX_BATCH, this::flushCompletes, CoalescedCalls::copy);
  }

  public BeginResult begin(BeginRequest request) {
    return begins.submit(request);
  }

  /** A fenced completion that keeps no result. */
  public InboxRecord complete(Claim claim) {
    return completes.submit(claim);
  }

  /** Callers of {@code begin} queued behind a running flush. */
  public int waitingBegins() {
    return begins.waiting();
  }

  /** Callers of {@code complete} queued behind a running flush. */
  public int waitingCompletes() {
    return completes.waiting();
  }

  /** How many requests the flushes so far held, per kind. */
  public CoalescingStats stats() {
    long[] b = begins.flushCounts();
    long[] c = completes.flushCounts();
    return new CoalescingStats(b[0], b[1], c[0], c[1]);
  }

  // ---- begins ----------------------------------------------------------------------------------

  private void flushBegins(List<Pending<BeginRequest, BeginResult>> batch) {
    jdbc.run(
        "begin",
        true,
        (c, s) -> {
          for (Split<BeginRequest, BeginResult> group :
              split(batch, BeginRequest::consumer, BeginRequest::messageId)) {
            beginGroup(c, s, group);
          }
          return null;
        });
  }

  private void beginGroup(Connection c, Statements s, Split<BeginRequest, BeginResult> group)
      throws SQLException {
    if (group.firsts.size() > 1 && s.supportsBatchInsert()) {
      List<BeginRequest> requests = new ArrayList<>(group.firsts.size());
      for (Pending<BeginRequest, BeginResult> p : group.firsts.values()) {
        requests.add(p.request);
      }
      for (InboxRecord inserted : s.batchInsertIfAbsent(c, requests, false, "")) {
        group
            .firsts
            .get(inserted.messageId())
            .answer(BeginResult.of(Kind.CLAIMED, inserted, inserted.createdAt()));
      }
      List<BeginRequest> existing = new ArrayList<>();
      for (Pending<BeginRequest, BeginResult> p : group.firsts.values()) {
        if (!p.decided()) {
          existing.add(p.request);
        }
      }
      Map<String, InboxTable.Snapshot> snaps =
          existing.isEmpty() ? Map.of() : rows.selectManyWithNow(c, s, existing);
      for (BeginRequest r : existing) {
        Pending<BeginRequest, BeginResult> p = group.firsts.get(r.messageId());
        InboxTable.Snapshot snap = snaps.get(r.messageId());
        try {
          BeginResult decided = snap == null ? null : rows.decide(c, s, r, snap);
          // Pruned or raced since the insert: settle this one the single-message way.
          p.answer(decided != null ? decided : rows.beginOn(c, s, r));
        } catch (InboxException e) {
          p.fail(e); // a payload mismatch is this caller's alone
        }
      }
    } else {
      for (Pending<BeginRequest, BeginResult> p : group.firsts.values()) {
        beginAlone(c, s, p);
      }
    }
    for (Pending<BeginRequest, BeginResult> repeat : group.repeats) {
      beginAlone(c, s, repeat);
    }
  }

  private void beginAlone(Connection c, Statements s, Pending<BeginRequest, BeginResult> p)
      throws SQLException {
    try {
      p.answer(rows.beginOn(c, s, p.request));
    } catch (InboxException e) {
      p.fail(e);
    }
  }

  // ---- completions -----------------------------------------------------------------------------

  private void flushCompletes(List<Pending<Claim, InboxRecord>> batch) {
    jdbc.run(
        "complete",
        true,
        (c, s) -> {
          for (Split<Claim, InboxRecord> group : split(batch, Claim::consumer, Claim::messageId)) {
            completeGroup(c, s, group);
          }
          return null;
        });
  }

  private void completeGroup(Connection c, Statements s, Split<Claim, InboxRecord> group)
      throws SQLException {
    if (group.firsts.size() > 1 && s.batchCompleteIsOneStatement()) {
      completeInOneStatement(c, s, group);
    } else if (group.firsts.size() > 1) {
      List<Claim> claims = new ArrayList<>(group.firsts.keySet().size());
      for (Pending<Claim, InboxRecord> p : group.firsts.values()) {
        claims.add(p.request);
      }
      // One transaction, committed before any answer is handed out.
      for (BatchCompletion done : batches.completeBatchCommitted(c, s, claims)) {
        Pending<Claim, InboxRecord> p = group.firsts.get(done.claim().messageId());
        if (done.succeeded()) {
          p.answer(done.record());
        } else {
          p.fail(done.error());
        }
      }
    } else {
      for (Pending<Claim, InboxRecord> p : group.firsts.values()) {
        completeAlone(c, s, p);
      }
    }
    for (Pending<Claim, InboxRecord> repeat : group.repeats) {
      completeAlone(c, s, repeat);
    }
  }

  /**
   * The batch completion as one statement in autocommit: one round trip and one commit, no {@code
   * BEGIN}/{@code COMMIT}. The completed callers are answered as soon as it returns (their DONE is
   * committed and read, so a later failure of this flush cannot take it back); each refused one is
   * then explained by a read of its record, as a single {@code complete} explains a refusal.
   */
  private void completeInOneStatement(Connection c, Statements s, Split<Claim, InboxRecord> group)
      throws SQLException {
    List<Claim> claims = new ArrayList<>(group.firsts.size());
    for (Pending<Claim, InboxRecord> p : group.firsts.values()) {
      claims.add(p.request);
    }
    for (InboxRecord done : s.batchComplete(c, claims)) {
      group.firsts.get(done.messageId()).answer(done);
    }
    for (Pending<Claim, InboxRecord> p : group.firsts.values()) {
      if (!p.decided()) {
        Claim claim = p.request;
        p.fail(
            RecordStateMachine.refusal(
                claim, rows.select(c, s, claim.consumer(), claim.messageId())));
      }
    }
  }

  private void completeAlone(Connection c, Statements s, Pending<Claim, InboxRecord> p)
      throws SQLException {
    try {
      p.answer(rows.completeOn(c, s, p.request, null));
    } catch (InboxException e) {
      p.fail(e);
    }
  }

  // ---- grouping --------------------------------------------------------------------------------

  /**
   * The undecided requests of one consumer: the first request per message id (a batch statement
   * takes each key once) and the repeats, settled singly after the batch.
   */
  private static final class Split<Q, A> {
    final Map<String, Pending<Q, A>> firsts = new LinkedHashMap<>();
    final List<Pending<Q, A>> repeats = new ArrayList<>();
  }

  private static <Q, A> List<Split<Q, A>> split(
      List<Pending<Q, A>> batch, Function<Q, String> consumer, Function<Q, String> messageId) {
    Map<String, Split<Q, A>> byConsumer = new HashMap<>();
    List<Split<Q, A>> out = new ArrayList<>();
    for (Pending<Q, A> p : batch) {
      if (p.decided()) {
        continue; // answered by an earlier try of this flush
      }
      Split<Q, A> split =
          byConsumer.computeIfAbsent(
              consumer.apply(p.request),
              k -> {
                Split<Q, A> created = new Split<>();
                out.add(created);
                return created;
              });
      if (split.firsts.putIfAbsent(messageId.apply(p.request), p) != null) {
        split.repeats.add(p);
      }
    }
    return out;
  }

  /** The flush's exception for one more of its callers: same type, that caller's own stack. */
  private static RuntimeException copy(RuntimeException e) {
    if (e.getClass() == StoreUnavailableException.class) {
      StoreUnavailableException u = (StoreUnavailableException) e;
      return new StoreUnavailableException(u.reason(), u.getMessage(), u);
    }
    if (e.getClass() == InboxException.class) {
      return new InboxException(e.getMessage(), e);
    }
    return e;
  }
}
