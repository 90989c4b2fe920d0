package dev.archlab.inbox.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.function.Function;

/**
 * Where the store's commands go: one server, or a cluster. On a cluster Lettuce routes a script by
 * its first key; when writes must wait for replicas, a write and its {@code WAIT} have to reach the
 * same master, so both go to the connection of the master that serves the key's slot.
 */
abstract class RedisTarget implements AutoCloseable {

  /**
   * Runs {@code work} against commands that reach the master of {@code key}'s slot; {@code pinned}
   * asks for a connection to that one node (for a following {@code WAIT}).
   */
  abstract <T> T onKey(
      byte[] key, boolean pinned, Function<RedisClusterCommands<byte[], byte[]>, T> work);

  /** Commands for anything not tied to a key (TIME, the consumer set). */
  abstract RedisClusterCommands<byte[], byte[]> any();

  /** Whether this is a cluster, for messages. */
  abstract boolean cluster();

  @Override
  public abstract void close();

  /** One server. */
  static final class Standalone extends RedisTarget {
    private final RedisClient ownedClient;
    private final StatefulRedisConnection<byte[], byte[]> connection;

    Standalone(RedisClient client, boolean ownsClient) {
      this.connection = client.connect(ByteArrayCodec.INSTANCE);
      this.ownedClient = ownsClient ? client : null;
    }

    @Override
    <T> T onKey(
        byte[] key, boolean pinned, Function<RedisClusterCommands<byte[], byte[]>, T> work) {
      return work.apply(connection.sync());
    }

    @Override
    RedisClusterCommands<byte[], byte[]> any() {
      return connection.sync();
    }

    @Override
    boolean cluster() {
      return false;
    }

    @Override
    public void close() {
      connection.close();
      if (ownedClient != null) {
        ownedClient.shutdown();
      }
    }
  }

  /** A Redis Cluster. */
  static final class Cluster extends RedisTarget {
    private final RedisClusterClient client;
    private final boolean ownsClient;
    private final StatefulRedisClusterConnection<byte[], byte[]> connection;

    Cluster(RedisClusterClient client, boolean ownsClient) {
      this.client = client;
      this.ownsClient = ownsClient;
      this.connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    @Override
    <T> T onKey(
        byte[] key, boolean pinned, Function<RedisClusterCommands<byte[], byte[]>, T> work) {
      if (!pinned) {
        return work.apply(connection.sync());
      }
      try {
        return work.apply(masterOf(key));
      } catch (RedisCommandExecutionException e) {
        // The slot moved (a failover or a resharding) since the topology was read: the command
        // was refused, not run, so it is safe to read the topology again and send it once more.
        if (e.getMessage() == null || !e.getMessage().startsWith("MOVED")) {
          throw e;
        }
        client.refreshPartitions();
        return work.apply(masterOf(key));
      }
    }

    private RedisClusterCommands<byte[], byte[]> masterOf(byte[] key) {
      RedisClusterNode node = connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
      if (node == null) {
        client.refreshPartitions();
        node = connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
      }
      if (node == null) {
        throw new IllegalStateException("no cluster node serves slot " + SlotHash.getSlot(key));
      }
      return connection.getConnection(node.getNodeId()).sync();
    }

    @Override
    RedisClusterCommands<byte[], byte[]> any() {
      return connection.sync();
    }

    @Override
    boolean cluster() {
      return true;
    }

    @Override
    public void close() {
      connection.close();
      if (ownsClient) {
        client.shutdown();
      }
    }
  }
}
