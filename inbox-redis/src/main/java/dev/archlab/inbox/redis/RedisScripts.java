package dev.archlab.inbox.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The store's Lua scripts, each run by its SHA-1 ({@code EVALSHA}) so only the digest travels; a
 * server that does not hold it yet (a restart, a new cluster node) answers {@code NOSCRIPT} and the
 * script is sent once in full ({@code EVAL}, which also caches it there).
 */
enum RedisScripts {
  /** The claim decision. */
  BEGIN("begin.lua"),
  /** complete, fail, mark-dead and extend under the fencing token. */
  FENCED("fenced.lua"),
  /** Deletes old DONE records of one bucket. */
  PRUNE("prune.lua"),
  /** Counts DONE records of one bucket updated before a cut-off, one page at a time. */
  CENSUS("census.lua"),
  /** The oldest records of one state in one bucket. */
  LIST("list.lua"),
  /** release and retry-dead. */
  ADMIN("admin.lua");

  private final byte[] body;
  private final String sha1;

  RedisScripts(String resource) {
    this.body = load(resource);
    this.sha1 = sha1Hex(body);
  }

  /**
   * Runs the script on {@code commands} with {@code keys} (all of one hash slot) and {@code args}.
   *
   * @return the script's reply: a list of byte arrays, longs and nested lists
   */
  List<Object> run(RedisClusterCommands<byte[], byte[]> commands, byte[][] keys, byte[]... args) {
    try {
      return commands.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
    } catch (RedisNoScriptException notLoaded) {
      return commands.eval(body, ScriptOutputType.MULTI, keys, args);
    }
  }

  private static byte[] load(String resource) {
    try (InputStream in = RedisScripts.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("script " + resource + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }

  private static String sha1Hex(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-1", e);
    }
  }
}
