package dev.archlab.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the Redis store promises beyond the contract suite: key layout, expiry, scripts, setup. */
class RedisInboxStoreTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void settingsAreValidatedAndNameTheBadValue() {
    assertThatThrownBy(() -> RedisInboxStore.builder().uri("redis://x").buckets(0).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("buckets")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> RedisInboxStore.builder().uri("redis://x").keyPrefix("a{b}").build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("keyPrefix");
    assertThatThrownBy(
            () -> RedisInboxStore.builder().uri("redis://x").retention(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention");
    assertThatThrownBy(
            () ->
                RedisInboxStore.builder()
                    .uri("redis://x")
                    .waitForReplicas(-1, Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("replicasToWaitFor");
    assertThatThrownBy(() -> RedisInboxStore.builder().build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("exactly one");
    RedisSettings defaults = RedisSettings.ofDefaults();
    assertThat(defaults.keyPrefix()).isEqualTo("inbox:");
    assertThat(defaults.buckets()).isEqualTo(64);
    assertThat(defaults.retention()).isEqualTo(Duration.ofDays(7));
    assertThat(defaults.replicasToWaitFor()).isZero();
  }

  @Test
  void anUnreachableServerIsReportedAsStoreUnavailable() throws Exception {
    int closedPort = RedisServers.freePort();
    assertThatThrownBy(
            () -> RedisInboxStore.builder().uri("redis://127.0.0.1:" + closedPort).build())
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("cannot connect");
  }

  @Test
  void aRecordAndItsIndexesShareOneSlotWhileOneConsumersRecordsSpreadOverManySlots() {
    RedisKeys keys = new RedisKeys("inbox:", 64);
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 2000; i++) {
      byte[][] scriptKeys = keys.recordScriptKeys("orders", "message-" + i);
      int slot = SlotHash.getSlot(scriptKeys[0]);
      for (byte[] k : scriptKeys) {
        assertThat(SlotHash.getSlot(k)).isEqualTo(slot);
      }
      slots.add(slot);
    }
    assertThat(slots).hasSize(64);
    // A brace in a consumer name cannot end the hash tag early and merge the buckets.
    Set<Integer> braced = new HashSet<>();
    for (int i = 0; i < 2000; i++) {
      braced.add(SlotHash.getSlot(keys.record("a}b", "message-" + i)));
    }
    assertThat(braced).hasSize(64);
  }

  @Test
  void doneExpiresAfterTheRetentionWhileProcessingAndDeadNeverExpire() throws Exception {
    try (RedisInboxStore store =
            RedisInboxStore.builder()
                .client(RedisServers.standaloneClient())
                .keyPrefix("expiry-" + System.nanoTime() + ":")
                .retention(Duration.ofMillis(200))
                .build();
        StatefulRedisConnection<byte[], byte[]> raw =
            RedisServers.standaloneClient().connect(ByteArrayCodec.INSTANCE)) {
      RedisKeys keys = store.keys();
      Claim done = begin(store, "done").claim();
      Claim running = begin(store, "running").claim();
      Claim parked = begin(store, "parked").claim();
      store.complete(done, "kept".getBytes());
      store.markDead(parked, "poison");
      assertThat(raw.sync().pttl(keys.record("c", "done"))).isBetween(1L, 200L);
      assertThat(raw.sync().pttl(keys.record("c", "running"))).isEqualTo(-1L);
      assertThat(raw.sync().pttl(keys.record("c", "parked"))).isEqualTo(-1L);

      // Expiry is Redis's own: wait for it (generous backstop), then the id is claimable anew.
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (store.find("c", "done").isPresent()) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(store.list(RecordState.DONE, "c", 10)).isEmpty();
      assertThat(store.prune(store.currentTime())).isZero(); // nothing left to delete ...
      byte[] doneIndex = keys.index("c", keys.bucketOf("done"), RecordState.DONE);
      assertThat(raw.sync().zcard(doneIndex)).isZero(); // ... and its index entry is gone
      BeginResult again = begin(store, "done");
      assertThat(again.kind()).isEqualTo(BeginResult.Kind.CLAIMED);
      assertThat(again.record().attempts()).isEqualTo(1);
      assertThat(store.find("c", "running"))
          .map(InboxRecord::state)
          .contains(RecordState.PROCESSING);
      assertThat(store.find("c", "parked")).map(InboxRecord::state).contains(RecordState.DEAD);
      assertThat(running.fencingToken()).isEqualTo(1);
    }
  }

  @Test
  void scriptsAreSentAgainWhenTheServerForgotThem() {
    try (RedisInboxStore store =
            RedisInboxStore.builder()
                .client(RedisServers.standaloneClient())
                .keyPrefix("noscript-" + System.nanoTime() + ":")
                .build();
        StatefulRedisConnection<byte[], byte[]> raw =
            RedisServers.standaloneClient().connect(ByteArrayCodec.INSTANCE)) {
      Claim first = begin(store, "a").claim();
      raw.sync().scriptFlush();
      assertThat(store.complete(first, null).state()).isEqualTo(RecordState.DONE);
      raw.sync().scriptFlush();
      assertThat(begin(store, "a").kind()).isEqualTo(BeginResult.Kind.DUPLICATE);
    }
  }

  @Test
  void adminReleasesALeaseAndForgetsDeadRecords() {
    try (RedisInboxStore store =
        RedisInboxStore.builder()
            .client(RedisServers.standaloneClient())
            .keyPrefix("admin-" + System.nanoTime() + ":")
            .build()) {
      RedisInboxAdmin admin = store.admin();
      begin(store, "hung");
      store.markDead(begin(store, "poison").claim(), "bad");
      store.complete(begin(store, "fine").claim(), null);
      assertThat(admin.counts()).containsExactly(new RedisInboxAdmin.ConsumerCounts("c", 1, 1, 1));

      Optional<InboxRecord> released = admin.release("c", "hung");
      assertThat(released).isPresent();
      assertThat(begin(store, "hung").kind()).isEqualTo(BeginResult.Kind.TAKEN_OVER);
      assertThat(admin.release("c", "fine")).isEmpty();

      assertThat(admin.retryDead("c", List.of())).isEqualTo(1);
      assertThat(store.find("c", "poison")).isEmpty();
      assertThat(begin(store, "poison").kind()).isEqualTo(BeginResult.Kind.CLAIMED);
    }
  }

  private static BeginResult begin(RedisInboxStore store, String id) {
    return store.begin(new BeginRequest("c", id, LEASE, 5, null));
  }
}
