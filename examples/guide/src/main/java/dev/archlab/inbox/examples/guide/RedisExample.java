package dev.archlab.inbox.examples.guide;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.redis.RedisInboxStore;
import java.time.Duration;

/**
 * The Redis guide's example: an SMS sent once per message id, its dedup records in Redis. Compiled
 * by the build; it needs a server to run (inbox-redis's tests run the store against real ones).
 */
public final class RedisExample {

  /** The SMS gateway: an effect outside any database. */
  public interface SmsGateway {
    /**
     * Sends one text.
     *
     * @param text the text
     * @param idempotencyKey a key stable across redeliveries, for the provider to drop repeats
     * @throws Exception if the gateway refused it
     */
    void send(byte[] text, String idempotencyKey) throws Exception;
  }

  private RedisExample() {}

  /**
   * Builds the store and the consumer.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}
   * @param smsGateway the effect
   * @return the consumer; {@code ((RedisInboxStore) consumer.store()).close()} closes the store's
   *     connection
   */
  public static IdempotentConsumer smsConsumer(String redisUri, SmsGateway smsGateway) {
    // tag::store[]
    RedisInboxStore store =
        RedisInboxStore.builder()
            .uri(redisUri) // or .client(redisClient) / .clusterClient(clusterClient)
            .keyPrefix("inbox:") // default "inbox:"
            .buckets(64) // hash slots per consumer; default 64, never change it later
            .retention(Duration.ofDays(7)) // DONE expiry = dedup window; default 7 days
            .waitForReplicas(1, Duration.ofSeconds(1)) // optional: WAIT for 1 replica per write
            .build();
    IdempotentConsumer sms =
        IdempotentConsumer.builder("sms", store)
            .handler(
                (message, attempt) -> smsGateway.send(message.payload(), attempt.idempotencyKey()))
            .build();
    // end::store[]
    return sms;
  }
}
