package dev.archlab.inbox.redis;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A consumer process for {@link RedisKillTest}, delivering like an at-least-once broker: it reads
 * the ids the driver released (a Redis list), consumes each through a {@link RedisInboxStore} until
 * the outcome may be acknowledged, and keeps redelivering the others. The handler's effect is an
 * independent tally in Redis: per id, a hash counting how often it ran under each fencing token
 * (attempt number). Ids starting with "poison" always fail. After its first applied message it
 * creates {@code <dir>/applied-<pid>}, so the driver kills only processes known to be running. It
 * exits when the driver sets the stop key.
 *
 * <p>Arguments: redisPort keyPrefix consumerName dir maxAttempts.
 */
public final class RedisConsumerProcess {

  private RedisConsumerProcess() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String prefix = args[1];
    String name = args[2];
    Path dir = Path.of(args[3]);
    int maxAttempts = Integer.parseInt(args[4]);
    String uri = "redis://127.0.0.1:" + port;
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> raw = client.connect();
        RedisInboxStore store =
            RedisInboxStore.builder().uri(uri).keyPrefix(prefix).buckets(8).build()) {
      RedisCommands<String, String> redis = raw.sync();
      Path marker = dir.resolve("applied-" + ProcessHandle.current().pid());
      IdempotentConsumer consumer =
          IdempotentConsumer.builder(name, store)
              .config(
                  InboxConfig.custom()
                      .lease(Duration.ofSeconds(2))
                      .retryPolicy(
                          RetryPolicy.custom()
                              .maxAttempts(maxAttempts)
                              .initialDelay(Duration.ofMillis(10))
                              .jitter(0)
                              .build())
                      .build())
              .handler(
                  (message, attempt) -> {
                    if (message.id().startsWith("poison")) {
                      throw new IllegalStateException("poison message " + message.id());
                    }
                    // One command, so a kill cannot split the tally: per id, how often the
                    // effect ran under each fencing token.
                    redis.hincrby(
                        prefix + "tally:" + message.id(), Integer.toString(attempt.number()), 1);
                    // A little work after the effect, so a kill often lands between the effect
                    // and the completion: the case a takeover must run again.
                    Thread.sleep(2);
                  })
              .build();
      Random random = new Random(ProcessHandle.current().pid());
      Set<String> pending = new LinkedHashSet<>();
      long seen = 0;
      while (redis.exists(prefix + "stop") == 0) {
        List<String> released = redis.lrange(prefix + "released", seen, -1);
        seen += released.size();
        pending.addAll(released);
        List<String> round = new ArrayList<>(pending);
        Collections.shuffle(round, random);
        boolean progressed = false;
        for (String id : round) {
          Outcome outcome = consumer.consume(Message.of(id));
          if (outcome.status() == Outcome.Status.APPLIED && !Files.exists(marker)) {
            Files.createFile(marker);
          }
          if (outcome.shouldAcknowledge()) {
            pending.remove(id);
            progressed = true;
          }
        }
        if (!progressed) {
          Thread.sleep(20); // nothing settled this round: redeliver a little later
        }
      }
    } finally {
      client.shutdown();
    }
  }
}
