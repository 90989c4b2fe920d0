package dev.archlab.inbox.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * The raw-SQL floor of the Kafka loop's one-commit shape: the statements {@code KafkaInboxLoop}
 * sends in its default mode on PostgreSQL, issued by a bare loop with nothing else. Per partition
 * of each poll, one transaction: the multi-row claim of the records' ids as DONE rows ({@code
 * INSERT … SELECT … FROM unnest(…) ON CONFLICT DO NOTHING RETURNING}, the same statement as the
 * store's, into {@link BenchDatabase#FLOOR_TABLE}), one business insert per new id, one commit;
 * then the poll's offsets are committed. The loop's ratio to this floor is its own overhead:
 * outcomes, listeners, offset tracking, the worker hand-off.
 */
final class KafkaFloorLoop extends KafkaPollLoop {

  private static final String CLAIM =
      "INSERT INTO "
          + BenchDatabase.FLOOR_TABLE
          + " (consumer, message_id, state, attempts, lease_until, created_at, updated_at,"
          + " payload_hash) SELECT ?, x.m, 'DONE', 1, NULL, statement_timestamp(),"
          + " statement_timestamp(), x.h FROM unnest(CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[]),"
          + " CAST(? AS BIGINT[])) AS x(m, h, l) ON CONFLICT (consumer, message_id) DO NOTHING"
          + " RETURNING message_id";

  private final DataSource pool;

  KafkaFloorLoop(DataSource pool, Map<String, Object> props, String topic) {
    super(props, topic);
    this.pool = pool;
  }

  @Override
  void write(ConsumerRecords<byte[], byte[]> records) throws SQLException {
    for (TopicPartition tp : records.partitions()) {
      write(records.records(tp));
    }
  }

  private void write(List<ConsumerRecord<byte[], byte[]>> records) throws SQLException {
    String[] ids = new String[records.size()];
    for (int i = 0; i < ids.length; i++) {
      Header h = records.get(i).headers().lastHeader(KafkaRun.ID_HEADER);
      ids[i] = new String(h.value(), StandardCharsets.UTF_8);
    }
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        List<String> fresh = new ArrayList<>(ids.length);
        try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
          Array idArray = c.createArrayOf("varchar", ids);
          ps.setString(1, "kafka-floor");
          ps.setArray(2, idArray);
          ps.setArray(3, c.createArrayOf("varchar", new String[ids.length]));
          ps.setArray(4, c.createArrayOf("bigint", new Long[0]));
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              fresh.add(rs.getString(1));
            }
          }
        }
        for (String id : fresh) {
          KafkaBenchConsumer.insertEffects(c, List.of(id));
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }
}
