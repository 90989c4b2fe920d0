package dev.archlab.inbox.bench;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One case of the Kafka load run ({@link KafkaRun}): empty the tables, start the case's consumer
 * processes, release them together, wait until every id has its row and the group's offsets reach
 * the end of the topic, stop them, and read the timed window and what it cost.
 */
final class KafkaDrain {

  private KafkaDrain() {}

  /** One case: empty tables, start its processes, release them, wait for every row, stop. */
  static KafkaRun.Measured drain(
      BenchDatabase db,
      KafkaBroker broker,
      CpuSampler cpu,
      CostMeter meter,
      KafkaRun.Case c,
      String topic,
      int records,
      KafkaRun.Settings s)
      throws Exception {
    db.reset();
    try (Connection conn = db.admin().getConnection();
        Statement st = conn.createStatement()) {
      st.execute("TRUNCATE " + KafkaRun.EFFECT_TABLE);
      st.execute("CHECKPOINT");
    }
    CostMeter.Reading before = meter.read();
    String group = "kbench-" + c.variant().label() + "-" + UUID.randomUUID();
    List<KafkaConsumerProcess> children = new ArrayList<>();
    ProcessCpuSampler split = null;
    try {
      for (int p = 0; p < c.processes(); p++) {
        children.add(
            KafkaConsumerProcess.start(
                c.variant(), broker, topic, group, db.jdbcUrl(), s.maxPollRecords(), p));
      }
      for (KafkaConsumerProcess child : children) {
        child.awaitReady();
      }
      split =
          ProcessCpuSampler.start(
              children.stream().map(KafkaConsumerProcess::pid).toList(),
              meter.serverPid(),
              broker.pid());
      for (KafkaConsumerProcess child : children) {
        child.send(KafkaBenchConsumer.GO);
      }
      // A generous bound that only turns a stuck run into an error; never a measurement.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + records / 20);
      awaitRows(db, records, children, deadline);
      awaitCommitted(broker, group, topic, records, children, deadline);
      split.take(); // the last row is in: this sample closes the window while all can be read
      for (KafkaConsumerProcess child : children) {
        child.send(KafkaBenchConsumer.STOP);
      }
      for (KafkaConsumerProcess child : children) {
        child.awaitExit();
      }
      return measure(db, records, s.warmupFraction(), cpu, split, before, meter.read());
    } finally {
      if (split != null) {
        split.close();
      }
      for (KafkaConsumerProcess child : children) {
        child.kill();
      }
    }
  }

  private static void awaitRows(
      BenchDatabase db, long records, List<KafkaConsumerProcess> children, long deadline)
      throws Exception {
    boolean countReached = false;
    while (true) {
      if (!countReached) {
        countReached = db.count(KafkaRun.EFFECT_TABLE) >= records;
      }
      if (countReached && distinctIds(db) >= records) {
        return;
      }
      check(
          children,
          deadline,
          "waiting for " + records + " distinct ids in " + KafkaRun.EFFECT_TABLE);
      Thread.sleep(200); // polls the table a few times a second; the clock is the rows' own
    }
  }

  private static void awaitCommitted(
      KafkaBroker broker,
      String group,
      String topic,
      long records,
      List<KafkaConsumerProcess> children,
      long deadline)
      throws Exception {
    while (KafkaTopics.committed(broker, group, topic) < records) {
      check(children, deadline, "waiting for group " + group + " to commit " + records);
      Thread.sleep(100);
    }
  }

  private static void check(List<KafkaConsumerProcess> children, long deadline, String what)
      throws IOException {
    for (KafkaConsumerProcess child : children) {
      child.requireAlive();
    }
    if (System.nanoTime() - deadline > 0) {
      StringBuilder logs = new StringBuilder();
      for (KafkaConsumerProcess child : children) {
        logs.append('\n').append(child.log());
      }
      throw new IllegalStateException("Kafka run stuck " + what + logs);
    }
  }

  private static long distinctIds(BenchDatabase db) throws SQLException {
    try (Connection c = db.admin().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT count(DISTINCT message_id) FROM " + KafkaRun.EFFECT_TABLE)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Rows, ids and the database-clock window from the warm-up rank to the last row, with the CPU use
   * of that window (the database clock is this machine's wall clock).
   */
  static KafkaRun.Measured measure(
      BenchDatabase db,
      long records,
      double warmupFraction,
      CpuSampler cpu,
      ProcessCpuSampler split,
      CostMeter.Reading before,
      CostMeter.Reading after)
      throws SQLException {
    long rows = db.count(KafkaRun.EFFECT_TABLE);
    long distinct = distinctIds(db);
    long warm = (long) Math.floor(rows * warmupFraction);
    double from;
    double to;
    try (Connection c = db.admin().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT EXTRACT(EPOCH FROM (SELECT created_at FROM "
                    + KafkaRun.EFFECT_TABLE
                    + " ORDER BY created_at OFFSET ? LIMIT 1)), EXTRACT(EPOCH FROM (SELECT"
                    + " max(created_at) FROM "
                    + KafkaRun.EFFECT_TABLE
                    + "))")) {
      ps.setLong(1, warm);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        from = rs.getDouble(1);
        to = rs.getDouble(2);
      }
    }
    double seconds = to - from;
    if (!(seconds > 0)) {
      throw new IllegalStateException(
          "the timed window of " + rows + " rows is " + seconds + " s: too few records to time");
    }
    long fromMillis = (long) Math.floor(from * 1000);
    long toMillis = (long) Math.ceil(to * 1000);
    double busy = cpu.busyPercent(fromMillis, toMillis);
    long timed = rows - 1 - warm;
    ProcessCpuSampler.Split spent = split.between(fromMillis, toMillis);
    CostMeter.Cost drain = CostMeter.between(before, after, records);
    return new KafkaRun.Measured(
        records,
        rows,
        distinct,
        timed,
        seconds,
        busy,
        spent.client() * 1e6 / timed,
        spent.server() * 1e6 / timed,
        spent.broker() * 1e6 / timed,
        drain.commitsPerMessage(),
        drain.statementsPerMessage());
  }
}
