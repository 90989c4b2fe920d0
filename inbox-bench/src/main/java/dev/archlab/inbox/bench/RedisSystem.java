package dev.archlab.inbox.bench;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.redis.RedisInboxStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * The systems of the Redis run ({@link RedisRun}). Each does the same unit of work per message:
 * deduplicate the id, and if it is new run the effect, which here is outside any database (an
 * in-memory tally, the stand-in for an SMS or an HTTP call: the Redis store's use case), so what is
 * measured is the dedup's own cost.
 */
enum RedisSystem {
  /** {@link RedisInboxStore} on one server: begin (claim) and complete, one Lua script each. */
  REDIS_STORE("redis-store", false),
  /** The same with {@code waitForReplicas(1, …)}: each write also waits for the replica. */
  REDIS_STORE_WAIT("redis-store-wait", false),
  /**
   * {@link JdbcInboxStore} lease mode on the embedded PostgreSQL (fsync on): a claim committed
   * before the effect, DONE committed after it.
   */
  PG_LEASE("pg-lease", true),
  /**
   * Camel's {@code SpringRedisStringIdempotentRepository} ({@link CamelRedisDriver}): {@code add}
   * (one {@code SET key id NX} through Spring Data's template), the effect, {@code confirm} (which
   * writes nothing). No in-progress state, no lease, no expiry by default: a process that dies
   * after the {@code add} loses the message.
   */
  CAMEL_REDIS("camel-redis", false),
  /**
   * A bare {@code SET key 1 NX} per message, then the effect: the command Camel's repository sends
   * for {@code add}, without Spring Data's template around it. A floor, not a peer: what one round
   * trip per message costs on this server.
   */
  SETNX("redis-setnx", false);

  /** How long a wait for the replica may take before the write is reported unconfirmed. */
  static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(5);

  private final String label;
  private final boolean needsDatabase;

  RedisSystem(String label, boolean needsDatabase) {
    this.label = label;
    this.needsDatabase = needsDatabase;
  }

  /** The name in CSVs and on the command line. */
  String label() {
    return label;
  }

  /** Whether the system keeps its records in PostgreSQL rather than Redis. */
  boolean needsDatabase() {
    return needsDatabase;
  }

  /** The system with this label. */
  static RedisSystem byLabel(String label) {
    for (RedisSystem s : values()) {
      if (s.label.equals(label)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown Redis-run system '" + label + "'");
  }

  /**
   * Opens the system. {@code pool} is used by {@link #PG_LEASE} only, {@code server} by {@link
   * #CAMEL_REDIS} (which brings its own client), {@code redis} by the others; every applied message
   * adds one to {@code effects}.
   */
  BenchSystem.Driver open(RedisClient redis, RedisURI server, DataSource pool, LongAdder effects) {
    switch (this) {
      case REDIS_STORE:
        return inbox(RedisInboxStore.builder().client(redis).build(), effects);
      case REDIS_STORE_WAIT:
        return inbox(
            RedisInboxStore.builder().client(redis).waitForReplicas(1, REPLICA_TIMEOUT).build(),
            effects);
      case PG_LEASE:
        return inbox(JdbcInboxStore.builder(pool).build(), effects);
      case CAMEL_REDIS:
        return CamelRedisDriver.open(server, effects);
      case SETNX:
        return setNx(redis, effects);
      default:
        throw new IllegalStateException("no driver for " + this);
    }
  }

  private Driver inbox(dev.archlab.inbox.store.InboxStore store, LongAdder effects) {
    IdempotentConsumer consumer =
        IdempotentConsumer.builder(label, store)
            .handler((message, attempt) -> effects.increment())
            .build();
    return new Driver() {
      @Override
      public int deliver(List<String> ids) {
        Outcome o = consumer.consume(Message.of(ids.get(0)));
        if (o.status() == Outcome.Status.APPLIED) {
          return 1;
        }
        if (o.status() == Outcome.Status.DUPLICATE) {
          return 0;
        }
        throw new IllegalStateException(label + ": unexpected outcome " + o);
      }

      @Override
      public void close() throws Exception {
        consumer.close();
        if (store instanceof AutoCloseable closeable) {
          closeable.close();
        }
      }
    };
  }

  private static Driver setNx(RedisClient redis, LongAdder effects) {
    // One connection shared by every thread, as the Redis store shares its one connection.
    StatefulRedisConnection<String, String> connection = redis.connect();
    SetArgs nx = SetArgs.Builder.nx();
    return new Driver() {
      @Override
      public int deliver(List<String> ids) {
        String id = ids.get(0);
        if (connection.sync().set("setnx:" + id, "1", nx) == null) {
          return 0; // SET NX answers nil when the key exists
        }
        effects.increment();
        return 1;
      }

      @Override
      public void close() {
        connection.close();
      }
    };
  }

  /** Shorter name inside this file. */
  private interface Driver extends BenchSystem.Driver {}
}
