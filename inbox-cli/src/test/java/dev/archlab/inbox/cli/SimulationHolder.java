package dev.archlab.inbox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A process that holds one id of an {@code inbox simulate} run (test code, started by {@link
 * CliProcessTest} with the test classpath), so that the run cannot finish while it is held.
 * Arguments as {@code key=value}: {@code db}, optional {@code user} and {@code password}, and the
 * run's {@code messages}, {@code duplicates} and {@code seed} (consumer {@code sim}, table {@code
 * inbox} and no poison, simulate's defaults), from which {@link SimulationIds} gives the ids.
 *
 * <ol>
 *   <li>Creates the inbox table if missing and claims the run's last id with a lease of {@code
 *       lease} (ISO-8601), before the run starts: every delivery of that id by the run then answers
 *       IN_FLIGHT and comes back after the simulated broker's capped delay (2 s at most), so the
 *       run stays mid-run however it is scheduled, and finishes soon after the release. Any answer
 *       but CLAIMED exits 2.
 *   <li>Closes every connection (so an embedded H2 file is released: the run that opens it next
 *       hosts it) and prints {@code HOLDING <id>}.
 *   <li>Waits for {@code release} on stdin (end of stdin without it exits 3, the claim still held),
 *       then does what the run's handler does for an id, as the claim's owner: inserts one row for
 *       the id into {@code inbox_sim_effect} (worker {@code holder}) and completes the claim, so
 *       the run's check of one effect row per DONE id holds for this id too. Prints {@code
 *       COMPLETED <id>} and exits 0; any failure exits non-zero with its message.
 * </ol>
 */
final class SimulationHolder {

  static final String CONSUMER = "sim";
  static final String TABLE = "inbox";
  static final String WORKER = "holder";

  private SimulationHolder() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("expected key=value, got: " + arg);
      }
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    int messages = Integer.parseInt(need(a, "messages"));
    SimulationIds ids =
        SimulationIds.of(
            CONSUMER,
            TABLE,
            messages,
            Integer.parseInt(need(a, "duplicates")),
            Long.parseLong(need(a, "seed")),
            0);
    String held = heldId(ids);
    Duration lease = Duration.parse(need(a, "lease"));

    Claim claim;
    try (HikariDataSource ds = pool(a)) {
      JdbcInboxStore store = JdbcInboxStore.builder(ds).table(TABLE).build();
      store.createSchemaIfMissing();
      BeginResult begun = store.begin(new BeginRequest(CONSUMER, held, lease, 1, null));
      if (!begun.claimed()) {
        System.out.println("could not claim " + held + ": " + begun.kind());
        System.out.flush();
        System.exit(2);
      }
      claim = begun.claim();
    }
    System.out.println("HOLDING " + held);
    System.out.flush();

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); ; line = in.readLine()) {
      if (line == null) {
        System.out.println("stdin closed without release: exiting with the claim held");
        System.out.flush();
        System.exit(3);
      }
      if (line.strip().equals("release")) {
        break;
      }
    }

    try (HikariDataSource ds = pool(a)) {
      JdbcInboxStore store = JdbcInboxStore.builder(ds).table(TABLE).build();
      try (Connection c = ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + SimulateCommand.EFFECTS
                      + " (message_id, applied_at, worker) VALUES (?, CURRENT_TIMESTAMP, ?)")) {
        ps.setString(1, held);
        ps.setString(2, WORKER);
        ps.executeUpdate();
      }
      InboxRecord done = store.complete(claim, null);
      System.out.println("COMPLETED " + held + " " + done.state() + " attempts " + done.attempts());
      System.out.flush();
    }
  }

  /** The id the holder claims: the run's last one. */
  static String heldId(SimulationIds ids) {
    return ids.id(ids.messages() - 1);
  }

  private static HikariDataSource pool(Map<String, String> a) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(need(a, "db"));
    if (a.containsKey("user")) {
      hc.setUsername(a.get("user"));
    }
    hc.setPassword(a.getOrDefault("password", ""));
    hc.setMaximumPoolSize(2);
    return new HikariDataSource(hc);
  }

  private static String need(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key + "=...");
    }
    return v;
  }
}
