package dev.archlab.inbox.kafka;

import dev.archlab.inbox.store.RecordStateMachine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * What the scale-out run left behind, per message id: effect rows, the inbox row (state, attempts,
 * last error) and whether the id reached the dead-letter topic. It checks the invariant the library
 * guarantees for every id and, when an id breaks it, explains that id instead of printing two
 * truncated sets.
 *
 * <p>The invariant: a good id is either DONE with exactly one effect, or DEAD with no effect, on
 * the dead-letter topic and with the lease-expiry error (its attempts ran out because leases
 * expired before the batches holding them finished: a killed process, or a batch slower than the
 * lease on a loaded machine). A poison id is DEAD with no effect and on the dead-letter topic.
 * Every id has an inbox row; no effect exists for an id that was never sent or is poison.
 */
final class ScaleOutLedger {

  private static final int SHOWN = 20;

  /** One inbox row, as read after the run. */
  record Row(String state, int attempts, String lastError) {}

  private final Set<String> good;
  private final Set<String> poison;
  private final Map<String, Integer> effects;
  private final Map<String, Row> rows;
  private final Set<String> deadLettered;

  private ScaleOutLedger(
      Set<String> good,
      Set<String> poison,
      Map<String, Integer> effects,
      Map<String, Row> rows,
      Set<String> deadLettered) {
    this.good = Set.copyOf(good);
    this.poison = Set.copyOf(poison);
    this.effects = Map.copyOf(effects);
    this.rows = Map.copyOf(rows);
    this.deadLettered = Set.copyOf(deadLettered);
  }

  static ScaleOutLedger read(
      DataSource ds, String consumer, Set<String> good, Set<String> poison, Set<String> dlt) {
    return new ScaleOutLedger(good, poison, Effects.counts(ds, consumer), rows(ds, consumer), dlt);
  }

  /** Good ids that ended DEAD because their leases kept expiring; allowed, counted and printed. */
  Set<String> goodDeadByLeaseExpiry() {
    Set<String> out = new TreeSet<>();
    for (String id : good) {
      Row row = rows.get(id);
      if (row != null && row.state().equals("DEAD") && explain(id, false) == null) {
        out.add(id);
      }
    }
    return out;
  }

  /** Total effect rows. */
  int effectRows() {
    return effects.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Null if every id keeps the invariant, else a report naming the ids that break it. */
  String violations() {
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
          Row row = rows.get(id);
          if (row != null && row.state().equals("DEAD")) {
            strayDeadLetters.remove(id);
          }
        });
    for (String id : strayDeadLetters) {
      problems.add(id + ": on the dead-letter topic but not DEAD, " + describe(id));
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

  /** Counts that locate a failure at a glance: missing and extra effects, states, DLT size. */
  String summary() {
    Set<String> missing = new TreeSet<>(good);
    missing.removeAll(effects.keySet());
    Set<String> extra = new TreeSet<>(effects.keySet());
    extra.removeAll(good);
    Map<String, Integer> states = new HashMap<>();
    rows.values().forEach(r -> states.merge(r.state(), 1, Integer::sum));
    // Attempts per DONE row: ids done at attempt 2 lost one lease on the way (a kill or a stall).
    Map<Integer, Integer> doneAttempts = new TreeMap<>();
    rows.values().stream()
        .filter(r -> r.state().equals("DONE"))
        .forEach(r -> doneAttempts.merge(r.attempts(), 1, Integer::sum));
    long doubled = effects.values().stream().filter(c -> c > 1).count();
    return String.format(
        Locale.ROOT,
        "good=%d poison=%d effect-ids=%d missing-effect=%d %s extra-effect=%d %s"
            + " double-effect-ids=%d inbox-rows=%d states=%s done-by-attempts=%s dlt-ids=%d good-dead-by-lease=%d %s",
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
        goodDeadByLeaseExpiry().size(),
        first(goodDeadByLeaseExpiry()));
  }

  /** Why {@code id} breaks the invariant, or null if it keeps it. */
  private String explain(String id, boolean isPoison) {
    int count = effects.getOrDefault(id, 0);
    Row row = rows.get(id);
    if (row == null) {
      return "no inbox row (lost)";
    }
    boolean onDlt = deadLettered.contains(id);
    if (row.state().equals("DONE") && !isPoison) {
      return count == 1 ? null : "DONE with " + count + " effect rows";
    }
    if (!row.state().equals("DEAD")) {
      return "left " + row.state();
    }
    if (count != 0) {
      return "DEAD with " + count + " effect rows";
    }
    if (!onDlt) {
      return "DEAD but not on the dead-letter topic";
    }
    if (isPoison) {
      return null;
    }
    String leaseExpired =
        String.format(Locale.ROOT, RecordStateMachine.LEASE_EXPIRED_ERROR_FORMAT, row.attempts());
    return leaseExpired.equals(row.lastError()) ? null : "good id DEAD for another reason";
  }

  private String describe(String id) {
    Row row = rows.get(id);
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
        + " on-dlt="
        + deadLettered.contains(id);
  }

  private static String first(Set<String> ids) {
    List<String> shown = new ArrayList<>(ids).subList(0, Math.min(SHOWN, ids.size()));
    return shown.toString();
  }

  private static Map<String, Row> rows(DataSource ds, String consumer) {
    Map<String, Row> out = new HashMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT message_id, state, attempts, last_error FROM inbox WHERE consumer = ?")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new Row(rs.getString(2), rs.getInt(3), rs.getString(4)));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }
}
