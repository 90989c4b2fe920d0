package dev.archlab.inbox.redis;

import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.testkit.StoreFixture;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh, empty store on a shared test server: each fixture has its own key prefix, so fixtures
 * never see each other's records and nothing has to be flushed. Moving time shifts every stored
 * time of the fixture's records (and the index scores) back, which is the same as the server clock
 * moving forward for every comparison the scripts make; Redis's own expiry is not moved, so the
 * retention is kept far longer than any test runs. Public, in this module's test-jar, for the CLI's
 * tests.
 */
public final class RedisStoreFixture implements StoreFixture {

  /** Buckets in the contract suite: enough to spread over the cluster's masters. */
  static final int CONTRACT_BUCKETS = 8;

  /**
   * Buckets in the model test, which reads every record of every bucket after every action: fewer
   * keep it quick, and more than one still has records of one consumer in several slots.
   */
  static final int MODEL_BUCKETS = 3;

  private static final AtomicInteger FIXTURES = new AtomicInteger();
  private static final byte[] SHIFT = load("shift.lua");

  private final RedisInboxStore store;

  private RedisStoreFixture(RedisInboxStore store) {
    this.store = store;
  }

  /** A fixture on the standalone server with {@code buckets} buckets. */
  public static RedisStoreFixture standalone(int buckets) {
    return new RedisStoreFixture(settings(buckets).client(RedisServers.standaloneClient()).build());
  }

  /** A fixture on the cluster with {@code buckets} buckets. */
  public static RedisStoreFixture cluster(int buckets) {
    return new RedisStoreFixture(
        settings(buckets).clusterClient(RedisServers.clusterClient()).build());
  }

  private static RedisStoreBuilder settings(int buckets) {
    return RedisInboxStore.builder()
        .keyPrefix("t" + ProcessHandle.current().pid() + "-" + FIXTURES.incrementAndGet() + ":")
        .buckets(buckets)
        .retention(Duration.ofDays(30));
  }

  @Override
  public RedisInboxStore store() {
    return store;
  }

  @Override
  public void advanceTime(Duration duration) {
    long shift = RedisRecords.micros(duration);
    byte[] micros = RedisRecords.bytes(shift);
    byte[] minus = RedisRecords.bytes(-shift);
    RedisKeys keys = store.keys();
    for (String consumer : store.consumers()) {
      for (int bucket = 0; bucket < keys.buckets(); bucket++) {
        byte[][] scriptKeys = {
          keys.index(consumer, bucket, RecordState.PROCESSING),
          keys.index(consumer, bucket, RecordState.DONE),
          keys.index(consumer, bucket, RecordState.DEAD),
          keys.doneByUpdate(consumer, bucket)
        };
        byte[] recordPrefix = keys.recordPrefix(consumer, bucket);
        store
            .target()
            .onKey(
                scriptKeys[0],
                false,
                c ->
                    c.eval(
                        SHIFT, ScriptOutputType.INTEGER, scriptKeys, micros, recordPrefix, minus));
      }
    }
  }

  @Override
  public void close() {
    store.close();
  }

  private static byte[] load(String resource) {
    try (InputStream in = RedisStoreFixture.class.getResourceAsStream(resource)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
