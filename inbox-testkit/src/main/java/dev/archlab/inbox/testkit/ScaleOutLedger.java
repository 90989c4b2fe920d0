package dev.archlab.inbox.testkit;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.InboxStore;
import dev.archlab.inbox.store.RecordStateMachine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a scale-out run of a broker adapter left behind, per message id: its effect rows, its inbox
 * record (state, attempts, last error) and whether it reached the dead-letter destination. It
 * checks, id by id, the invariant the library guarantees whatever the timing of kills, restarts and
 * slow batches, and when an id breaks it, names that id with everything known about it instead of
 * comparing two large sets.
 *
 * <p>The invariant:
 *
 * <ul>
 *   <li>a good id is DONE with exactly one effect, or DEAD with no effect, dead-lettered and with
 *       the lease-expiry error of {@link RecordStateMachine#LEASE_EXPIRED_ERROR_FORMAT} (its
 *       attempts ran out because leases expired before the work holding them finished: a killed
 *       process, or a batch slower than the lease on a loaded machine — the promise of a
 *       configuration with a bounded number of attempts, not a lost message);
 *   <li>a poison id (its handler always throws) is DEAD, without effect and dead-lettered;
 *   <li>every id has an inbox record, none is left PROCESSING or in any other state;
 *   <li>no effect exists for an id that is poison or was never sent;
 *   <li>nothing is dead-lettered unless its record is DEAD.
 * </ul>
 *
 * <p>Immutable; the caller reads the effects, records and dead letters after its run and hands them
 * over, so this class needs neither a database nor a broker.
 */
public final class ScaleOutLedger {

  private static final int SHOWN = 20;

  private final Set<String> good;
  private final Set<String> poison;
  private final Map<String, Integer> effects;
  private final Map<String, InboxRecord> rows;
  private final Set<String> deadLettered;
  private final String deadLetterName;

  /**
   * A ledger of one run.
   *
   * @param good ids sent whose handler succeeds
   * @param poison ids sent whose handler always throws
   * @param effects effect rows per id (ids without effect may be absent)
   * @param records the inbox records of the run's consumer, in any state (see {@link #recordsOf})
   * @param deadLettered ids found at the dead-letter destination (each once, however often)
   * @param deadLetterName how failure reports call that destination, e.g. "dead-letter topic"
   */
  public ScaleOutLedger(
      Set<String> good,
      Set<String> poison,
      Map<String, Integer> effects,
      Collection<InboxRecord> records,
      Set<String> deadLettered,
      String deadLetterName) {
    this.good = Set.copyOf(good);
    this.poison = Set.copyOf(poison);
    this.effects = Map.copyOf(effects);
    Map<String, InboxRecord> byId = new HashMap<>();
    for (InboxRecord r : records) {
      if (byId.put(r.messageId(), r) != null) {
        throw new IllegalArgumentException("two records of id " + r.messageId());
      }
    }
    this.rows = Map.copyOf(byId);
    this.deadLettered = Set.copyOf(deadLettered);
    this.deadLetterName = Objects.requireNonNull(deadLetterName, "deadLetterName");
  }

  /**
   * Every record {@code consumer} has in {@code store}, whatever its state: what the ledger takes
   * after a run.
   *
   * @param store the store the run's consumers used
   * @param consumer the run's consumer name
   * @return the records, PROCESSING, DONE and DEAD
   */
  public static List<InboxRecord> recordsOf(InboxStore store, String consumer) {
    List<InboxRecord> out = new ArrayList<>();
    for (RecordState state : RecordState.values()) {
      out.addAll(store.list(state, consumer, Integer.MAX_VALUE));
    }
    return out;
  }

  /**
   * Good ids that ended DEAD because their leases kept expiring: allowed by the invariant, counted
   * and printed by the runs.
   *
   * @return those ids, sorted
   */
  public Set<String> goodDeadByLeaseExpiry() {
    Set<String> out = new TreeSet<>();
    for (String id : good) {
      InboxRecord row = rows.get(id);
      if (row != null && row.state() == RecordState.DEAD && explain(id, false) == null) {
        out.add(id);
      }
    }
    return out;
  }

  /**
   * Total effect rows.
   *
   * @return the sum of effect rows over every id
   */
  public int effectRows() {
    return effects.values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * Effect rows beyond the first of each id: 0 whenever {@link #violations()} is null.
   *
   * @return the sum over ids of their effect rows minus one
   */
  public int doubleEffects() {
    return effects.values().stream().mapToInt(c -> Math.max(0, c - 1)).sum();
  }

  /**
   * Ids sent that have no inbox record in a final state (none, or PROCESSING): 0 whenever {@link
   * #violations()} is null.
   *
   * @return how many good and poison ids were lost or left unfinished
   */
  public int lost() {
    Set<String> everyId = new TreeSet<>(good);
    everyId.addAll(poison);
    int lost = 0;
    for (String id : everyId) {
      InboxRecord row = rows.get(id);
      if (row == null || (row.state() != RecordState.DONE && row.state() != RecordState.DEAD)) {
        lost++;
      }
    }
    return lost;
  }

  /**
   * Null if every id keeps the invariant, else a report: the {@link #summary()} and the first ids
   * that break it, each with its effects, state, attempts, last error and whether it was
   * dead-lettered.
   *
   * @return the report, or null
   */
  public String violations() {
    List<String> problems = new ArrayList<>();
    Set<String> unknown = new TreeSet<>(effects.keySet());
    unknown.removeAll(good);
    for (String id : unknown) {
      problems.add(id + ": effect for an id that is poison or was never sent, " + describe(id));
    }
    Set<String> everyId = new TreeSet<>(good);
    everyId.addAll(poison);
    for (String id : everyId) {
      String why = explain(id, poison.contains(id));
      if (why != null) {
        problems.add(id + ": " + why + ", " + describe(id));
      }
    }
    Set<String> strayDeadLetters = new TreeSet<>(deadLettered);
    everyId.forEach(
        id -> {
          InboxRecord row = rows.get(id);
          if (row != null && row.state() == RecordState.DEAD) {
            strayDeadLetters.remove(id);
          }
        });
    for (String id : strayDeadLetters) {
      problems.add(id + ": on the " + deadLetterName + " but not DEAD, " + describe(id));
    }
    if (problems.isEmpty()) {
      return null;
    }
    return summary()
        + "\n"
        + problems.size()
        + " id(s) break the invariant, first "
        + Math.min(SHOWN, problems.size())
        + ":\n  "
        + String.join("\n  ", problems.subList(0, Math.min(SHOWN, problems.size())));
  }

  /**
   * Counts that locate a failure at a glance: missing and extra effects, states, attempts of the
   * DONE records, dead letters and good ids dead by lease expiry.
   *
   * @return one line
   */
  public String summary() {
    Set<String> missing = new TreeSet<>(good);
    missing.removeAll(effects.keySet());
    Set<String> extra = new TreeSet<>(effects.keySet());
    extra.removeAll(good);
    Map<RecordState, Integer> states = new TreeMap<>();
    rows.values().forEach(r -> states.merge(r.state(), 1, Integer::sum));
    // Attempts per DONE record: ids done at attempt 2 lost one lease on the way (a kill, a stall).
    Map<Integer, Integer> doneAttempts = new TreeMap<>();
    rows.values().stream()
        .filter(r -> r.state() == RecordState.DONE)
        .forEach(r -> doneAttempts.merge(r.attempts(), 1, Integer::sum));
    long doubled = effects.values().stream().filter(c -> c > 1).count();
    Set<String> goodDead = goodDeadByLeaseExpiry();
    return String.format(
        Locale.ROOT,
        "good=%d poison=%d effect-ids=%d missing-effect=%d %s extra-effect=%d %s"
            + " double-effect-ids=%d inbox-rows=%d states=%s done-by-attempts=%s"
            + " dead-lettered-ids=%d good-dead-by-lease=%d %s",
        good.size(),
        poison.size(),
        effects.size(),
        missing.size(),
        first(missing),
        extra.size(),
        first(extra),
        doubled,
        rows.size(),
        states,
        doneAttempts,
        deadLettered.size(),
        goodDead.size(),
        first(goodDead));
  }

  /** Why {@code id} breaks the invariant, or null if it keeps it. */
  private String explain(String id, boolean isPoison) {
    int count = effects.getOrDefault(id, 0);
    InboxRecord row = rows.get(id);
    if (row == null) {
      return "no inbox row (lost)";
    }
    if (row.state() == RecordState.DONE && !isPoison) {
      return count == 1 ? null : "DONE with " + count + " effect rows";
    }
    if (row.state() != RecordState.DEAD) {
      return "left " + row.state();
    }
    if (count != 0) {
      return "DEAD with " + count + " effect rows";
    }
    if (!deadLettered.contains(id)) {
      return "DEAD but not on the " + deadLetterName;
    }
    if (isPoison) {
      return null;
    }
    String leaseExpired =
        String.format(Locale.ROOT, RecordStateMachine.LEASE_EXPIRED_ERROR_FORMAT, row.attempts());
    return leaseExpired.equals(row.lastError()) ? null : "good id DEAD for another reason";
  }

  private String describe(String id) {
    InboxRecord row = rows.get(id);
    return "effects="
        + effects.getOrDefault(id, 0)
        + (row == null
            ? " no-row"
            : " state="
                + row.state()
                + " attempts="
                + row.attempts()
                + " last_error="
                + row.lastError())
        + " dead-lettered="
        + deadLettered.contains(id);
  }

  private static String first(Set<String> ids) {
    return new ArrayList<>(ids).subList(0, Math.min(SHOWN, ids.size())).toString();
  }
}
