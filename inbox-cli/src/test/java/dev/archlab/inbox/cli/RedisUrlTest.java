package dev.archlab.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import org.junit.jupiter.api.Test;

/** How a Redis URL is read: our parameters taken out, the client's kept, bad values refused. */
class RedisUrlTest {

  @Test
  void aPlainUrlUsesTheStoreDefaults() {
    RedisUrl url = RedisUrl.parse("redis://cache:6379/2");

    assertThat(url).isEqualTo(new RedisUrl("redis://cache:6379/2", false, "inbox:", 64));
  }

  @Test
  void ourParametersAreTakenOutAndTheClientsAreKept() {
    RedisUrl url =
        RedisUrl.parse("redis://h1:7000,h2:7000?timeout=5s&cluster=true&keyPrefix=app:&buckets=16");

    assertThat(url).isEqualTo(new RedisUrl("redis://h1:7000,h2:7000?timeout=5s", true, "app:", 16));
  }

  @Test
  void redisSchemesAreRecognisedInAnyCaseAndOthersAreNot() {
    assertThat(RedisUrl.isRedis("REDIS://x:1")).isTrue();
    assertThat(RedisUrl.isRedis(" rediss://x:1")).isTrue();
    assertThat(RedisUrl.isRedis("jdbc:postgresql://x/db")).isFalse();
    assertThat(RedisUrl.isRedis("redis-sentinel://x:1")).isFalse();
  }

  @Test
  void badParametersAreRefusedByName() {
    assertThatThrownBy(() -> RedisUrl.parse("redis://x:1?buckets=many"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("buckets=many");
    assertThatThrownBy(() -> RedisUrl.parse("redis://x:1?buckets=0"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("buckets");
    assertThatThrownBy(() -> RedisUrl.parse("redis://x:1?keyPrefix={a}"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("keyPrefix");
    assertThatThrownBy(() -> RedisUrl.parse("redis://x:1?cluster=yes"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("cluster=yes");
  }
}
