package dev.archlab.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.store.BeginRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The replica-wait option on the test cluster, whose masters have one replica each. */
class ClusterReplicaWaitTest {

  @Test
  void writesReturnOnceTheReplicaHasThem() {
    try (RedisInboxStore store = store(1, Duration.ofMinutes(1))) {
      for (int i = 0; i < 50; i++) {
        Claim claim =
            store.begin(new BeginRequest("c", "m" + i, Duration.ofSeconds(30), 5, null)).claim();
        assertThat(store.complete(claim, null).state()).isEqualTo(RecordState.DONE);
      }
    }
  }

  @Test
  void aWriteMoreReplicasThanExistCanConfirmIsReportedButHappenedOnTheMaster() {
    try (RedisInboxStore store = store(2, Duration.ofMillis(100))) {
      assertThatThrownBy(
              () -> store.begin(new BeginRequest("c", "m", Duration.ofSeconds(30), 5, null)))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("only 1 of 2 replica(s)");
      assertThat(store.find("c", "m")).map(r -> r.state()).contains(RecordState.PROCESSING);
    }
  }

  private static RedisInboxStore store(int replicas, Duration timeout) {
    return RedisInboxStore.builder()
        .clusterClient(RedisServers.clusterClient())
        .keyPrefix("wait-" + System.nanoTime() + ":")
        .waitForReplicas(replicas, timeout)
        .build();
  }
}
