package dev.archlab.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.store.BeginRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The admin's count of prunable DONE records and its prune with progress, on more records than one
 * page or batch holds, so the paging is exercised.
 */
class RedisAdminPruneTest {

  private static final Duration LEASE = Duration.ofMinutes(5);

  @Test
  void countPrunableAndPruneWithProgressCoverEveryPageAndOnlyOldDoneRecords() {
    int old = RedisInboxStore.PRUNE_BATCH * 2 + 100;
    try (RedisStoreFixture fixture = RedisStoreFixture.standalone(1)) {
      RedisInboxStore store = fixture.store();
      RedisInboxAdmin admin = store.admin();
      for (int i = 0; i < old; i++) {
        store.complete(begin(store, "old-" + i).claim(), null);
      }
      begin(store, "old-running");
      fixture.advanceTime(Duration.ofHours(2));
      store.complete(begin(store, "young").claim(), null);
      Instant cutOff = store.currentTime().minus(Duration.ofHours(1));

      assertThat(admin.countPrunable("c", cutOff)).isEqualTo(old);
      assertThat(admin.countPrunable(null, cutOff)).isEqualTo(old);
      assertThat(admin.countPrunable("c", store.currentTime().plusSeconds(1))).isEqualTo(old + 1);

      List<Long> progress = new ArrayList<>();
      assertThat(admin.prune("c", cutOff, progress::add)).isEqualTo(old);

      assertThat(progress).isSorted().hasSizeGreaterThanOrEqualTo(3).endsWith((long) old);
      assertThat(admin.countPrunable("c", cutOff)).isZero();
      assertThat(store.find("c", "young")).isPresent();
      assertThat(store.find("c", "old-running")).isPresent();
      assertThat(store.find("c", "old-0")).isEmpty();
    }
  }

  private static dev.archlab.inbox.store.BeginResult begin(RedisInboxStore store, String id) {
    return store.begin(new BeginRequest("c", id, LEASE, 5, null));
  }
}
