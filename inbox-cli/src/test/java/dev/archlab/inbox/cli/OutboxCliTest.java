package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import dev.archlab.inbox.outbox.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code inbox outbox status|list|retry-dead} on a real outbox table (an H2 file). */
class OutboxCliTest {

  @TempDir Path dir;

  private String url;
  private Outbox outbox;

  @BeforeEach
  void threeRowsOneOfThemDead() throws Exception {
    url = "jdbc:h2:file:" + dir.resolve("outbox") + ";AUTO_SERVER=TRUE";
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(url);
    outbox = Outbox.builder(ds).build();
    outbox.createSchemaIfMissing();
    try (Connection c = ds.getConnection()) {
      for (String id : new String[] {"pay-1", "pay-2", "pay-3"}) {
        outbox.send(
            c,
            new OutboxMessage(
                id, "payments", "customer-7", "{}".getBytes(StandardCharsets.UTF_8), Map.of()));
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE inbox_outbox SET state = 'DEAD', last_error = 'topic missing'"
                  + " WHERE message_id = 'pay-2'")) {
        ps.executeUpdate();
      }
    }
  }

  @Test
  void statusCountsTheRowsByStateAndAgesTheOldestPending() {
    Cli.Result r = Cli.run("outbox", "status", "--db", url);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("PENDING", "OLDEST PENDING");
    assertThat(r.out().lines().filter(l -> l.startsWith("inbox_outbox")).findFirst().orElseThrow())
        .matches("inbox_outbox\\s+2\\s+0\\s+1\\s+\\S+");
  }

  @Test
  void listShowsOneStatesRowsWithTheirErrors() {
    Cli.Result r = Cli.run("outbox", "list", "--state", "dead", "--db", url);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("pay-2", "payments", "customer-7", "topic missing", "1 row(s)");
    assertThat(r.out()).doesNotContain("pay-1");
  }

  @Test
  void retryDeadPutsTheRowBackAndLeavesUnknownIdsAlone() {
    Cli.Result r = Cli.run("outbox", "retry-dead", "pay-2", "nope", "--db", url);
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("nope: no DEAD row", "1 DEAD row(s) are PENDING again");
    OutboxAdmin.Counts counts = outbox.admin().counts();
    assertThat(counts.pending()).isEqualTo(3);
    assertThat(counts.dead()).isZero();
  }

  @Test
  void badInputIsAUsageErrorAndChangesNothing() {
    assertThat(Cli.run("outbox", "list", "--state", "LOST", "--db", url).err())
        .contains("invalid state 'LOST'");
    assertThat(Cli.run("outbox", "list", "--state", "DEAD", "--limit", "0", "--db", url).code())
        .isEqualTo(InboxCli.USAGE);
    Cli.Result redis = Cli.run("outbox", "status", "--db", "redis://127.0.0.1:1");
    assertThat(redis.code()).isEqualTo(InboxCli.USAGE);
    assertThat(redis.err()).contains("JDBC URL, not Redis");
    assertThat(Cli.run("outbox", "status", "--outbox-table", "x;drop", "--db", url).code())
        .isEqualTo(InboxCli.USAGE);
    assertThat(Cli.run("outbox").code()).isEqualTo(InboxCli.USAGE);
    assertThat(outbox.admin().counts()).isEqualTo(new OutboxAdmin.Counts(2, 0, 1));
  }
}
