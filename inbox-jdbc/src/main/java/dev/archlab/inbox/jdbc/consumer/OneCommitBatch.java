package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.ConsumerSettings;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.TransactionalHandler;
import dev.archlab.inbox.jdbc.dialect.LockTimeoutPlan;
import dev.archlab.inbox.jdbc.dialect.SqlErrorKind;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.jdbc.internal.GuardedConnection;
import dev.archlab.inbox.jdbc.internal.InboxBatches;
import dev.archlab.inbox.jdbc.internal.InboxTable;
import dev.archlab.inbox.jdbc.internal.LocalTransaction;
import dev.archlab.inbox.jdbc.internal.StoreParts;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one-commit batch: a batch of deliveries consumed in one transaction together with their
 * business writes. The new ids are inserted DONE by one multi-row statement where the dialect has
 * one ({@link Statements#supportsBatchInsert()}; one insert per id elsewhere), existing records are
 * read in one statement and decided as a single claim would decide them, the effects of the
 * messages this transaction owns run, and one commit makes the records and the effects durable
 * together.
 *
 * <p>Each delivery's outcome is the one {@link OneCommitConsumer#consume(Message)} would answer for
 * it, called once per delivery in delivery order:
 *
 * <ul>
 *   <li>A failing message fails alone. Its failure is named ({@link BatchItemFailedException}; a
 *       per-message handler's failure always is) or found by bisection; the transaction is rolled
 *       back, the failure recorded in a short transaction of its own (retry, or DEAD and the
 *       dead-letter path at the last attempt) and the rest run again in a new transaction.
 *   <li>A claim that meets another transaction's lock past the lock timeout, or a deadlock while
 *       claiming, rolls the transaction back and the messages go again one per transaction, so only
 *       the contended one answers IN_FLIGHT.
 *   <li>A repeated id is consumed once, at its first position; the later copies answer {@link
 *       ConsumeSteps#repeated}.
 * </ul>
 *
 * <p>Events are reported once per delivery whatever the re-runs; outcomes after the commit that
 * settled them. Claims are inserted in id order, so two batches over the same ids take their row
 * locks in the same order and cannot deadlock on them.
 *
 * <p>A per-message handler runs inside the {@link ConsumeInterceptor#handlerScope} of its message,
 * each call (re-runs included) in a scope of its own, so a tracing interceptor makes that message's
 * span current while its handler runs; a batch handler, which takes every message at once, runs
 * inside none. Thread-safe.
 */
final class OneCommitBatch {

  /** Retry hint of an IN_FLIGHT caused by the connection's own lock wait limit. */
  static final Duration IN_FLIGHT_RETRY_AFTER = Duration.ofSeconds(1);

  /** The business effects of the messages one transaction owns. */
  @FunctionalInterface
  interface Effects {
    /**
     * Runs the effects of {@code attempts}, in delivery order, through {@code guard}'s connection,
     * each message's in {@code interceptor}'s handler scope where it runs alone. A {@link
     * BatchItemFailedException} names the messages that failed; any other exception fails the whole
     * run, and the engine bisects.
     */
    void run(
        List<OneCommitAttempt> attempts, GuardedConnection guard, ConsumeInterceptor interceptor)
        throws Exception;

    /** A handler per message, called in delivery order: a failure names its message. */
    static Effects perMessage(TransactionalHandler handler) {
      return (attempts, guard, interceptor) -> {
        for (OneCommitAttempt a : attempts) {
          try {
            ConsumeInterceptor.inHandlerScope(
                interceptor,
                a.message(),
                () -> {
                  handler.handle(a.message(), a, guard.connection());
                  guard.throwIfRefused();
                });
          } catch (Exception e) {
            throw new BatchItemFailedException(List.of(a.messageId()), e);
          }
        }
      };
    }

    /**
     * One call with every message: no single message's scope is current, since what the handler
     * does serves all of them.
     */
    static Effects wholeBatch(TransactionalBatchHandler batchHandler) {
      return (attempts, guard, interceptor) -> {
        List<Message> messages = new ArrayList<>(attempts.size());
        for (OneCommitAttempt a : attempts) {
          messages.add(a.message());
        }
        batchHandler.handle(List.copyOf(messages), guard.connection());
      };
    }
  }

  private final ConsumerSettings settings;
  private final JdbcInboxStore store;
  private final StoreParts parts;
  private final ConsumeSteps steps;
  private final Duration lockTimeout;
  private final Effects effects;

  OneCommitBatch(
      ConsumerSettings settings,
      JdbcInboxStore store,
      ConsumeSteps steps,
      Duration lockTimeout,
      Effects effects) {
    this.settings = settings;
    this.store = store;
    this.parts = StoreParts.of(this.store);
    this.steps = steps;
    this.lockTimeout = lockTimeout;
    this.effects = effects;
  }

  /**
   * Consumes {@code messages} (checked, not empty); one outcome per delivery, in order. With {@code
   * inOrder}, nothing after the first delivery that does not finish (IN_FLIGHT or FAILED) is
   * consumed, as a loop of single calls that stops there would do, and only the outcomes up to and
   * including that one are returned. Each call of a per-message handler runs in {@code
   * interceptor}'s handler scope of its message.
   */
  List<Outcome> consume(List<Message> messages, boolean inOrder, ConsumeInterceptor interceptor) {
    BatchInput input = BatchInput.of(settings, messages);
    Outcome[] outcomes = new Outcome[input.size()];
    Call call = new Call(input, outcomes, inOrder, interceptor);
    call.settle();
    int end = Math.min(call.cutoff, input.size() - 1) + 1;
    input.answerRepeats(outcomes, steps, end);
    return List.copyOf(Arrays.asList(outcomes).subList(0, end));
  }

  /**
   * How one transaction over a group ended when it did not commit: a handler failure, a lock wait
   * that timed out, or (in order) a message in flight elsewhere at position {@code heldAt} with
   * claimed messages after it.
   */
  private record Ran(Exception failure, boolean contended, int heldAt) {}

  private static boolean unfinished(Outcome outcome) {
    return outcome.status() == Outcome.Status.IN_FLIGHT
        || outcome.status() == Outcome.Status.FAILED;
  }

  /** The state of one {@link #consume} call. */
  private final class Call {
    private final BatchInput input;
    private final Outcome[] outcomes;
    private final boolean inOrder;
    private final ConsumeInterceptor interceptor;

    /** In order: the first position that did not finish; nothing after it is consumed. */
    int cutoff = Integer.MAX_VALUE;

    /** Ids whose claim (and takeover or retry) was reported; re-runs do not report it again. */
    private final Set<String> started = new HashSet<>();

    Call(BatchInput input, Outcome[] outcomes, boolean inOrder, ConsumeInterceptor interceptor) {
      this.input = input;
      this.outcomes = outcomes;
      this.inOrder = inOrder;
      this.interceptor = interceptor;
    }

    private void answer(int i, Outcome outcome) {
      outcomes[i] = outcome;
      if (inOrder && unfinished(outcome)) {
        cutoff = Math.min(cutoff, i);
      }
    }

    /** The group without the positions past the cutoff. */
    private List<Integer> beforeCutoff(List<Integer> group) {
      List<Integer> kept = new ArrayList<>(group.size());
      for (int i : group) {
        if (i < cutoff) {
          kept.add(i);
        }
      }
      return kept;
    }

    /** Runs groups depth first, first half before second, so effects run in delivery order. */
    void settle() {
      Deque<List<Integer>> pending = new ArrayDeque<>();
      pending.push(input.firsts());
      while (!pending.isEmpty()) {
        List<Integer> group = beforeCutoff(pending.pop());
        if (group.isEmpty()) {
          continue;
        }
        Ran ran = runOnce(group);
        if (ran == null) {
          continue;
        }
        if (ran.heldAt() >= 0) {
          // Run again up to the held message, which then answers IN_FLIGHT and cuts the rest.
          pending.push(List.copyOf(group.subList(0, group.indexOf(ran.heldAt()) + 1)));
          continue;
        }
        if (ran.contended()) {
          // Only a claim alone can tell which message is held: one transaction each.
          for (int k = group.size() - 1; k >= 0; k--) {
            pending.push(List.of(group.get(k)));
          }
          continue;
        }
        // In order, single calls would stop at the first failing message.
        FailureIsolation.isolate(
            ran.failure(), group, i -> input.message(i).id(), inOrder, this::fail, pending);
      }
    }

    /** Records a failed attempt as a single one-commit call does: claim, then fail. */
    private void fail(int i, Exception failure) {
      Message message = input.message(i);
      BeginResult again = store.begin(input.request(i));
      if (!again.claimed()) {
        answer(i, steps.unclaimed(message, again));
        return;
      }
      try {
        answer(i, steps.recordFailure(message, again.claim(), failure));
      } catch (LeaseLostException lost) {
        answer(i, Outcome.leaseLost(message.id(), again.claim().fencingToken(), lost));
      }
    }

    /**
     * One transaction over {@code group}: claims, effects, DONE, commit. Sets the outcomes and
     * returns null when it committed; otherwise returns why not, with everything rolled back.
     */
    private Ran runOnce(List<Integer> group) {
      try (Connection c = store.dataSource().getConnection();
          LocalTransaction tx = new LocalTransaction(c)) {
        Map<Integer, BeginResult> begun;
        Map<Integer, InboxRecord> inserted = new HashMap<>();
        try {
          begun = claim(c, group, inserted);
        } catch (SQLException e) {
          tx.rollback(e);
          SqlErrorKind kind = parts.jdbc().dialect(c).classify(e);
          if (kind == SqlErrorKind.LOCK_TIMEOUT && group.size() == 1) {
            return answerHeld(group.get(0));
          }
          if ((kind == SqlErrorKind.LOCK_TIMEOUT || kind == SqlErrorKind.SERIALIZATION)
              && group.size() > 1) {
            return new Ran(null, true, -1);
          }
          throw e;
        } catch (RuntimeException e) {
          tx.rollback(e);
          throw e;
        }
        int heldAt = inOrder ? heldBeforeClaimed(group, begun) : -1;
        if (heldAt >= 0) {
          tx.rollback();
          return new Ran(null, false, heldAt);
        }
        List<OneCommitAttempt> attempts = new ArrayList<>();
        for (int i : group) {
          BeginResult b = begun.get(i);
          if (b.claimed()) {
            InboxRecord fresh = inserted.get(i);
            // A record inserted DONE has no lease of its own; the claim's is nominal, as in
            // a single call (the transaction keeps the row until the commit).
            Claim claim =
                fresh == null
                    ? b.claim()
                    : new Claim(
                        settings.name(),
                        fresh.messageId(),
                        1,
                        fresh.createdAt().plus(settings.config().lease()));
            start(i, b, claim);
            attempts.add(new OneCommitAttempt(store, c, input.message(i), claim, fresh));
          }
        }
        if (!attempts.isEmpty()) {
          GuardedConnection guard = GuardedConnection.around(c);
          try {
            effects.run(List.copyOf(attempts), guard, interceptor);
            guard.throwIfRefused();
          } catch (Exception e) {
            tx.rollback(e);
            return new Ran(e, false, -1);
          }
        }
        Map<String, InboxRecord> done = new HashMap<>();
        try {
          for (OneCommitAttempt a : attempts) {
            done.put(a.messageId(), a.complete());
          }
          tx.commit();
        } catch (SQLException | RuntimeException e) {
          tx.rollback(e);
          throw e;
        }
        for (int i : group) {
          InboxRecord applied = done.get(input.message(i).id());
          answer(
              i,
              applied != null
                  ? steps.applied(applied)
                  : steps.unclaimed(input.message(i), begun.get(i)));
        }
        return null;
      } catch (SQLException e) {
        throw parts.jdbc().translate("one-commit batch", e);
      }
    }

    /** A lone claim waited past the lock timeout: someone else's transaction holds the id. */
    private Ran answerHeld(int i) {
      String id = input.message(i).id();
      steps.emit(InboxEvent.Kind.IN_FLIGHT, id, 0, null);
      answer(
          i,
          Outcome.inFlight(id, 0, lockTimeout != null ? lockTimeout : IN_FLIGHT_RETRY_AFTER, null));
      return null;
    }

    /**
     * The first position whose message is in flight elsewhere when a claimed one follows it, or -1:
     * in order, what follows an unfinished message must not be consumed.
     */
    private int heldBeforeClaimed(List<Integer> group, Map<Integer, BeginResult> begun) {
      int held = -1;
      for (int i : group) {
        BeginResult b = begun.get(i);
        if (held < 0 && b.kind() == BeginResult.Kind.IN_FLIGHT) {
          held = i;
        } else if (held >= 0 && b.claimed()) {
          return held;
        }
      }
      return -1;
    }

    /** Reports a claim the first time this call owns the message. */
    private void start(int i, BeginResult begun, Claim claim) {
      Message message = input.message(i);
      if (started.add(message.id())) {
        if (begun.kind() != BeginResult.Kind.CLAIMED) {
          steps.unclaimed(message, begun); // reports the takeover or the due retry
        }
        steps.claimed(message, claim);
      }
    }

    /**
     * Claims the group's ids on {@code c} under the lock timeout: new ids inserted DONE (put into
     * {@code inserted}), the others decided on their current record. Returns each position's begin.
     */
    private Map<Integer, BeginResult> claim(
        Connection c, List<Integer> group, Map<Integer, InboxRecord> inserted) throws SQLException {
      LockTimeoutPlan plan =
          lockTimeout == null ? null : parts.jdbc().dialect(c).claimLockTimeout(lockTimeout);
      if (plan != null) {
        plan.runBefore(c);
      }
      Map<Integer, BeginResult> begun;
      try {
        begun = claimUnbounded(c, group, inserted, plan == null ? "" : plan.insertPrefix());
      } catch (SQLException | RuntimeException e) {
        if (plan != null) {
          plan.restoreAfterFailure(c, e);
        }
        throw e;
      }
      if (plan != null) {
        plan.runAfter(c);
      }
      return begun;
    }

    private Map<Integer, BeginResult> claimUnbounded(
        Connection c, List<Integer> group, Map<Integer, InboxRecord> inserted, String prefix)
        throws SQLException {
      Map<String, Integer> positions = new HashMap<>();
      List<BeginRequest> sorted = new ArrayList<>(group.size());
      for (int i : group) {
        positions.put(input.message(i).id(), i);
        sorted.add(input.request(i));
      }
      sorted.sort(Comparator.comparing(BeginRequest::messageId));
      Statements s = parts.jdbc().statementsFor(c);
      Map<Integer, BeginResult> begun = new HashMap<>();
      for (int from = 0; from < sorted.size(); from += InboxBatches.MAX_BATCH) {
        List<BeginRequest> chunk =
            sorted.subList(from, Math.min(sorted.size(), from + InboxBatches.MAX_BATCH));
        List<InboxRecord> fresh = new ArrayList<>();
        if (s.supportsBatchInsert()) {
          fresh.addAll(s.batchInsertIfAbsent(c, chunk, true, prefix));
        } else {
          for (BeginRequest r : chunk) {
            InboxRecord record = parts.rows().insertDoneOn(c, s, r, prefix);
            if (record != null) {
              fresh.add(record);
            }
          }
        }
        for (InboxRecord record : fresh) {
          int i = positions.get(record.messageId());
          inserted.put(i, record);
          begun.put(i, BeginResult.of(BeginResult.Kind.CLAIMED, record, record.createdAt()));
        }
      }
      List<BeginRequest> existing = new ArrayList<>();
      for (BeginRequest r : sorted) {
        if (!begun.containsKey(positions.get(r.messageId()))) {
          existing.add(r);
        }
      }
      if (existing.isEmpty()) {
        return begun;
      }
      Map<String, InboxTable.Snapshot> snaps = new HashMap<>();
      for (int from = 0; from < existing.size(); from += InboxBatches.MAX_BATCH) {
        snaps.putAll(
            parts
                .rows()
                .selectManyWithNow(
                    c,
                    s,
                    existing.subList(
                        from, Math.min(existing.size(), from + InboxBatches.MAX_BATCH))));
      }
      for (BeginRequest r : existing) {
        InboxTable.Snapshot snap = snaps.get(r.messageId());
        BeginResult decided = snap == null ? null : parts.rows().decide(c, s, r, snap);
        // Pruned, or changed since the read: settle this one as a single claim would.
        begun.put(
            positions.get(r.messageId()),
            decided != null ? decided : parts.rows().beginOn(c, s, r, snap == null));
      }
      return begun;
    }
  }
}
