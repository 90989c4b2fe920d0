package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.redis.RedisInboxStore;
import dev.archlab.inbox.redis.RedisServers;
import dev.archlab.inbox.redis.RedisStoreFixture;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator commands on a {@code redis://} URL, against a real {@code redis-server} (the
 * inbox-redis fixtures): records in every state, each command run through the CLI entry point, its
 * output and the store's state afterwards asserted. Each test has its own key prefix, passed in the
 * URL as an application would configure it.
 */
class RedisCliTest {

  private static final Duration HELD = Duration.ofHours(1);
  private static final Duration SHORT = Duration.ofMinutes(1);
  private static final Duration AGED = Duration.ofHours(2);
  private static final int BUCKETS = 4;

  private RedisStoreFixture fixture;
  private RedisInboxStore store;
  private String url;

  @BeforeEach
  void freshStore() {
    fixture = RedisStoreFixture.standalone(BUCKETS);
    store = fixture.store();
    url =
        "redis://127.0.0.1:"
            + RedisServers.standalone().port()
            + "?keyPrefix="
            + store.settings().keyPrefix()
            + "&buckets="
            + BUCKETS;
  }

  @AfterEach
  void close() {
    fixture.close();
  }

  /**
   * billing: old-done (DONE, updated {@link #AGED} ago), stuck (PROCESSING, lease expired), dead-1
   * (DEAD, aged); then young-done (DONE now), held (PROCESSING, lease for an hour), dead-2 (DEAD).
   * shipping: one young DONE record.
   */
  private void recordsInEveryState() {
    store.complete(claim("billing", "old-done", HELD), null);
    claim("billing", "stuck", SHORT);
    store.markDead(claim("billing", "dead-1", HELD), "poison one");
    // Every stored time moves back, as if the server clock had moved forward by AGED.
    fixture.advanceTime(AGED);
    store.complete(claim("billing", "young-done", HELD), null);
    claim("billing", "held", HELD);
    store.markDead(claim("billing", "dead-2", HELD), "poison two");
    store.complete(claim("shipping", "s-1", HELD), null);
  }

  private Claim claim(String consumer, String id, Duration lease) {
    return begin(consumer, id, lease).claim();
  }

  private BeginResult begin(String consumer, String id, Duration lease) {
    return store.begin(new BeginRequest(consumer, id, lease, 5, null));
  }

  @Test
  void statusCountsEveryStateStuckLeasesAndDoneRecordsPastRetention() {
    recordsInEveryState();

    Cli.Result r = Cli.run("status", "--retention", "1h", "--db", url);

    assertThat(r.code()).as(r.toString()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).contains("CONSUMER", "PROCESSING", "DONE", "DEAD", "STUCK", "PAST 1h");
    // billing: 2 PROCESSING, 2 DONE, 2 DEAD, 1 stuck, oldest active 2h, 1 DONE past 1h.
    String[] billing = lines.get(1).split("\\s+");
    assertThat(billing).hasSize(7);
    assertThat(List.of(billing[0], billing[1], billing[2], billing[3], billing[4], billing[6]))
        .containsExactly("billing", "2", "2", "2", "1", "1");
    // Two hours and however long the test has run since (minutes on a slow machine).
    assertThat(billing[5]).matches("2h(\\d+m)?");
    assertThat(lines.get(2).split("\\s+"))
        .containsExactly("shipping", "0", "1", "0", "0", "-", "0");
    assertThat(lines).hasSize(3);
  }

  @Test
  void theOperatorCommandsWorkOnARedisClusterUrl() {
    try (RedisStoreFixture onCluster = RedisStoreFixture.cluster(BUCKETS)) {
      RedisInboxStore clusterStore = onCluster.store();
      List<String> seeds =
          RedisServers.cluster().stream().map(RedisServers.RedisNode::address).toList();
      String clusterUrl =
          "redis://"
              + String.join(",", seeds)
              + "?cluster=true&keyPrefix="
              + clusterStore.settings().keyPrefix()
              + "&buckets="
              + BUCKETS;
      for (int i = 0; i < 20; i++) {
        clusterStore.begin(new BeginRequest("billing", "m-" + i, HELD, 5, null));
      }
      clusterStore.markDead(
          clusterStore.find("billing", "m-7").orElseThrow().toClaim(), "poison on the cluster");

      Cli.Result status = Cli.run("status", "--db", clusterUrl);
      assertThat(status.code()).as(status.toString()).isZero();
      String[] billing = status.out().lines().toList().get(1).split("\\s+");
      assertThat(List.of(billing[0], billing[1], billing[2], billing[3]))
          .containsExactly("billing", "19", "0", "1");

      Cli.Result retry = Cli.run("retry-dead", "billing", "--db", clusterUrl);
      assertThat(retry.code()).as(retry.toString()).isZero();
      assertThat(clusterStore.find("billing", "m-7")).isEmpty();

      Cli.Result release = Cli.run("release", "billing", "m-3", "--db", clusterUrl);
      assertThat(release.code()).as(release.toString()).isZero();
      assertThat(clusterStore.begin(new BeginRequest("billing", "m-3", HELD, 5, null)).kind())
          .isEqualTo(BeginResult.Kind.TAKEN_OVER);
    }
  }

  @Test
  void statusOnAnEmptyKeySpaceSaysWhereItLooked() {
    Cli.Result r = Cli.run("status", "--db", url);

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("no records in Redis key prefix '" + store.settings().keyPrefix());
  }

  @Test
  void listShowsOneStateOldestFirst() {
    recordsInEveryState();

    Cli.Result dead = Cli.run("list", "--state", "dead", "--db", url);
    assertThat(dead.code()).as(dead.toString()).isZero();
    List<String> lines = dead.out().lines().toList();
    assertThat(lines.get(1)).contains("billing", "dead-1", "DEAD", "poison one");
    assertThat(lines.get(2)).contains("billing", "dead-2", "DEAD", "poison two");
    assertThat(lines.get(3)).isEqualTo("2 record(s)");

    Cli.Result done = Cli.run("list", "--state", "DONE", "--consumer", "shipping", "--db", url);
    assertThat(done.code()).as(done.toString()).isZero();
    assertThat(done.out()).contains("s-1").doesNotContain("old-done").contains("1 record(s)");
  }

  @Test
  void showPrintsOneRecordAndFailsForAMissingOne() {
    recordsInEveryState();

    Cli.Result held = Cli.run("show", "billing", "held", "--db", url);
    assertThat(held.code()).as(held.toString()).isZero();
    assertThat(held.out())
        .contains("state:        PROCESSING")
        .contains("attempts:     1")
        .containsPattern("lease until: .*\\(in ");

    Cli.Result stuck = Cli.run("show", "billing", "stuck", "--db", url);
    assertThat(stuck.out()).containsPattern("lease until: .*\\(expired .* ago\\)");

    Cli.Result missing = Cli.run("show", "billing", "nothing-here", "--db", url);
    assertThat(missing.code()).as(missing.toString()).isEqualTo(1);
    assertThat(missing.err()).contains("no record for consumer 'billing' and id 'nothing-here'");
  }

  @Test
  void releaseMakesAHeldIdClaimableByTheNextDelivery() {
    recordsInEveryState();
    assertThat(begin("billing", "held", HELD).kind()).isEqualTo(BeginResult.Kind.IN_FLIGHT);

    Cli.Result r = Cli.run("release", "billing", "held", "--db", url);

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("released billing/held (attempt 1)");
    BeginResult next = begin("billing", "held", HELD);
    assertThat(next.kind()).isEqualTo(BeginResult.Kind.TAKEN_OVER);
    assertThat(next.record().attempts()).isEqualTo(2);

    Cli.Result notHeld = Cli.run("release", "billing", "young-done", "--db", url);
    assertThat(notHeld.code()).as(notHeld.toString()).isEqualTo(1);
    assertThat(notHeld.err()).contains("no PROCESSING record");
    assertThat(store.find("billing", "young-done").orElseThrow().state())
        .isEqualTo(RecordState.DONE);
  }

  @Test
  void retryDeadMakesDeadIdsRunAgainAtAttemptOne() {
    recordsInEveryState();
    assertThat(begin("billing", "dead-1", HELD).kind()).isEqualTo(BeginResult.Kind.DEAD);

    Cli.Result one = Cli.run("retry-dead", "billing", "dead-1", "--db", url);
    assertThat(one.code()).as(one.toString()).isZero();
    assertThat(one.out()).contains("1 DEAD record(s) of billing are retryable again");
    BeginResult again = begin("billing", "dead-1", HELD);
    assertThat(again.kind()).isEqualTo(BeginResult.Kind.CLAIMED);
    assertThat(again.record().attempts()).isEqualTo(1);
    assertThat(store.find("billing", "dead-2").orElseThrow().state()).isEqualTo(RecordState.DEAD);

    Cli.Result all = Cli.run("retry-dead", "billing", "--db", url);
    assertThat(all.code()).as(all.toString()).isZero();
    assertThat(all.out()).contains("1 DEAD record(s) of billing are retryable again");
    assertThat(store.list(RecordState.DEAD, null, 100)).isEmpty();
    assertThat(begin("billing", "dead-2", HELD).record().attempts()).isEqualTo(1);
  }

  @Test
  void pruneDryRunChangesNothingAndPruneRemovesOnlyOldDoneRecords() {
    recordsInEveryState();
    List<InboxRecord> before = everyRecord();

    Cli.Result dry =
        Cli.run(
            "prune", "--older-than", "1h", "--redelivery-window", "30m", "--dry-run", "--db", url);
    assertThat(dry.code()).as(dry.toString()).isZero();
    assertThat(dry.out()).contains("would delete 1 DONE record(s)");
    assertThat(everyRecord()).isEqualTo(before);

    Cli.Result prune =
        Cli.run(
            "prune",
            "--older-than",
            "1h",
            "--redelivery-window",
            "30m",
            "--no-progress",
            "--db",
            url);
    assertThat(prune.code()).as(prune.toString()).isZero();
    assertThat(prune.out()).contains("deleted 1 DONE record(s)");
    assertThat(store.find("billing", "old-done")).isEmpty();
    // Everything else stays: the young DONE records, and old PROCESSING and DEAD ones.
    assertThat(everyRecord())
        .extracting(InboxRecord::messageId)
        .containsExactlyInAnyOrder("stuck", "dead-1", "young-done", "held", "dead-2", "s-1");
  }

  private List<InboxRecord> everyRecord() {
    List<InboxRecord> all = new ArrayList<>();
    for (RecordState state : RecordState.values()) {
      all.addAll(store.list(state, null, 1000));
    }
    return all;
  }

  @Test
  void pruneStillRefusesAWindowNotLongerThanTheRedeliveryWindow() {
    Cli.Result r = Cli.run("prune", "--older-than", "1h", "--redelivery-window", "1d", "--db", url);

    assertThat(r.code()).as(r.toString()).isEqualTo(2);
  }

  @Test
  void sqlCommandsOnARedisUrlSayTheyWorkOnJdbcOnly() {
    for (String command : List.of("migrate", "simulate", "demo")) {
      Cli.Result r = Cli.run(command, "--db", url);

      assertThat(r.code()).as(r.toString()).isEqualTo(2);
      assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
      assertThat(r.err()).contains("'" + command + "' works on JDBC databases only");
    }
  }

  @Test
  void anUnreachableRedisIsAClearFailure() throws IOException {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }

    Cli.Result r = Cli.run("status", "--db", "redis://127.0.0.1:" + closedPort);

    assertThat(r.code()).as(r.toString()).isEqualTo(1);
    assertThat(r.err()).startsWith("inbox: cannot connect to Redis");
    assertThat(r.err().lines().count()).as(r.toString()).isEqualTo(1);
  }

  @Test
  void badRedisUrlParametersAndUnknownSchemesAreUsageErrors() {
    Cli.Result buckets = Cli.run("status", "--db", "redis://127.0.0.1:1?buckets=0");
    assertThat(buckets.code()).as(buckets.toString()).isEqualTo(2);
    assertThat(buckets.err()).contains("buckets must be between 1 and");

    Cli.Result cluster = Cli.run("status", "--db", "redis://127.0.0.1:1?cluster=maybe");
    assertThat(cluster.code()).as(cluster.toString()).isEqualTo(2);
    assertThat(cluster.err()).contains("cluster=maybe");

    Cli.Result scheme = Cli.run("status", "--db", "memcached://127.0.0.1:11211");
    assertThat(scheme.code()).as(scheme.toString()).isEqualTo(2);
    assertThat(scheme.err()).contains("invalid JDBC URL").contains("redis://");

    Cli.Result login = Cli.run("status", "--db", url, "--user", "app");
    assertThat(login.code()).as(login.toString()).isEqualTo(2);
    assertThat(login.err()).contains("give Redis credentials in the URL");

    Cli.Result table = Cli.run("list", "--state", "DONE", "--db", url, "--table", "orders");
    assertThat(table.code()).as(table.toString()).isEqualTo(2);
    assertThat(table.err()).contains("--table is for JDBC databases");
  }
}
