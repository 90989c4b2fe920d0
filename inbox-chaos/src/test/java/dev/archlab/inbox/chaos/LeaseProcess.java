package dev.archlab.inbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxEvent;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.cli.SimulationIds;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consumer JVM the clock-skew scenario controls step by step (test code, started by {@link
 * ClockSkew} with the test classpath). Two modes, arguments as {@code key=value}:
 *
 * <ul>
 *   <li>{@code hold}: claims every id of the run at once (one thread per id) with a handler that
 *       blocks; once every handler has been entered, so every claim is committed, it prints {@code
 *       HOLDING <n>}. It keeps the leases alive with the heartbeat and releases the handlers only
 *       when the driver writes {@code release} to its stdin; each handler then inserts its effect
 *       row and the claim completes. End of stdin without {@code release} exits 3, applying
 *       nothing.
 *   <li>{@code deliver}: delivers each id {@code copies} times, once per delivery, never
 *       redelivering, and counts the answers. Its handler inserts an effect row too, so a stolen
 *       lease would show as a second row.
 * </ul>
 *
 * <p>Both print a summary in the layout of {@code inbox simulate} ({@code deliveries}, {@code
 * applied}, {@code duplicates}, {@code in-flight}, {@code failed}, {@code takeovers}, {@code
 * handler runs}) that {@link Fleet.Run#summary} reads.
 */
final class LeaseProcess {

  private LeaseProcess() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("expected key=value, got: " + args[i]);
      }
      a.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    String mode = args.length > 0 ? args[0] : "";
    if (!mode.equals("hold") && !mode.equals("deliver")) {
      throw new IllegalArgumentException("first argument must be hold or deliver, was: " + mode);
    }
    String consumer = need(a, "consumer");
    int messages = Integer.parseInt(need(a, "messages"));
    long seed = Long.parseLong(need(a, "seed"));
    Duration offset = Duration.ofMinutes(Long.parseLong(need(a, "clock-minutes")));
    Duration lease = Duration.parse(need(a, "lease"));
    SimulationIds ids = SimulationIds.of(consumer, "inbox", messages, 0, seed, 0);

    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(need(a, "db"));
    hc.setUsername(need(a, "user"));
    hc.setPassword(a.getOrDefault("password", ""));
    hc.setMaximumPoolSize(8);
    try (HikariDataSource ds = new HikariDataSource(hc)) {
      JdbcInboxStore store = JdbcInboxStore.builder(ds).build();
      AtomicLong takeovers = new AtomicLong();
      AtomicLong handlerRuns = new AtomicLong();
      CountDownLatch entered = new CountDownLatch(messages);
      CountDownLatch release = new CountDownLatch(1);
      boolean hold = mode.equals("hold");
      IdempotentConsumer c =
          IdempotentConsumer.builder(consumer, store)
              .clock(Clock.offset(Clock.systemUTC(), offset))
              // The heartbeat keeps the holder's leases alive however long the driver needs:
              // the leases must not end by time while the others deliver.
              .config(
                  hold
                      ? InboxConfig.custom().lease(lease).heartbeat().build()
                      : InboxConfig.custom().lease(lease).build())
              .listener(
                  e -> {
                    if (e.kind() == InboxEvent.Kind.TAKEOVER) {
                      takeovers.incrementAndGet();
                    }
                  })
              .handler(
                  (m, attempt) -> {
                    handlerRuns.incrementAndGet();
                    if (hold) {
                      entered.countDown();
                      release.await();
                    }
                    insertEffect(ds, m.id());
                  })
              .build();

      List<String> deliveries = new ArrayList<>();
      int copies = hold ? 1 : Integer.parseInt(need(a, "copies"));
      for (int d = 0; d < copies; d++) {
        for (int i = 0; i < messages; i++) {
          deliveries.add(ids.id(i));
        }
      }
      ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
      Map<Outcome.Status, AtomicLong> answers = new EnumMap<>(Outcome.Status.class);
      for (Outcome.Status s : Outcome.Status.values()) {
        answers.put(s, new AtomicLong());
      }
      AtomicLong errors = new AtomicLong();
      // hold: one thread per id, each parked in its handler; deliver: a few workers.
      int threads = hold ? messages : Integer.parseInt(need(a, "workers"));
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread w =
            new Thread(
                () -> {
                  for (String id = queue.poll(); id != null; id = queue.poll()) {
                    try {
                      answers.get(c.consume(Message.of(id)).status()).incrementAndGet();
                    } catch (RuntimeException e) {
                      errors.incrementAndGet();
                      System.out.println("error on " + id + ": " + e);
                    }
                  }
                },
                "worker-" + t);
        workers.add(w);
        w.start();
      }
      if (hold) {
        entered.await();
        System.out.println("HOLDING " + messages);
        System.out.flush();
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); ; line = in.readLine()) {
          if (line == null) {
            System.out.println("stdin closed without release: exiting with the claims held");
            System.out.flush();
            Runtime.getRuntime().halt(3);
          }
          if (line.strip().equals("release")) {
            break;
          }
        }
        release.countDown();
      }
      for (Thread w : workers) {
        w.join();
      }
      c.close();
      System.out.printf("  deliveries     %d%n", deliveries.size());
      System.out.printf("  applied        %d%n", answers.get(Outcome.Status.APPLIED).get());
      System.out.printf("  duplicates     %d%n", answers.get(Outcome.Status.DUPLICATE).get());
      System.out.printf("  in-flight      %d%n", answers.get(Outcome.Status.IN_FLIGHT).get());
      System.out.printf("  failed         %d%n", answers.get(Outcome.Status.FAILED).get());
      System.out.printf("  dead           %d%n", answers.get(Outcome.Status.DEAD).get());
      System.out.printf("  takeovers      %d%n", takeovers.get());
      System.out.printf("  handler runs   %d%n", handlerRuns.get());
      System.out.printf("  store errors   %d%n", errors.get());
      System.out.flush();
    }
  }

  private static String need(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key + "=...");
    }
    return v;
  }

  private static void insertEffect(HikariDataSource ds, String id) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + EndState.EFFECTS
                    + " (message_id, applied_at, worker) VALUES (?, CURRENT_TIMESTAMP, ?)")) {
      ps.setString(1, id);
      ps.setString(2, Thread.currentThread().getName());
      ps.executeUpdate();
    }
  }
}
