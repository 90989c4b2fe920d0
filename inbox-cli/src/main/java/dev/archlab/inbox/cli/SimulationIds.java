package dev.archlab.inbox.cli;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;

/**
 * The message ids of one {@code inbox simulate} run: {@code sim-SEED-KEY-NNNNNNN}, where KEY is
 * derived from everything that defines the run's id set and expected end state (consumer, inbox
 * table, messages, duplicates, seed, poison) and NNNNNNN is the id's index, zero-padded to {@value
 * #INDEX_DIGITS} digits. Two different runs in one database therefore never share an id, while a
 * rerun with the same arguments (after a {@code kill -9}) resumes the same ids. The padding makes
 * the ids sort like their indexes, so "the first P ids" (the poison) is a range an SQL query can
 * count. Public so that tests in other modules can read a run's end state.
 */
public final class SimulationIds {

  /** Digits of the index: {@code --messages} is at most 10 000 000 (indexes 0 .. 9 999 999). */
  static final int INDEX_DIGITS = 7;

  private final String key;
  private final String prefix;
  private final int messages;
  private final int poison;

  private SimulationIds(String key, long seed, int messages, int poison) {
    this.key = key;
    this.prefix = "sim-" + seed + "-" + key + "-";
    this.messages = messages;
    this.poison = poison;
  }

  /**
   * The ids of the run with these arguments of {@code inbox simulate}.
   *
   * @param table the {@code --table} value (unquoted identifiers are compared case-insensitively)
   */
  public static SimulationIds of(
      String consumer, String table, int messages, int duplicates, long seed, int poison) {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(table, "table");
    if (messages < 0 || messages > 10_000_000) {
      throw new IllegalArgumentException("messages must be between 0 and 10000000: " + messages);
    }
    String run =
        String.join(
            "\n",
            "v1",
            consumer,
            table.strip().toLowerCase(Locale.ROOT),
            String.valueOf(messages),
            String.valueOf(duplicates),
            String.valueOf(seed),
            String.valueOf(poison));
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(run.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    return new SimulationIds(HexFormat.of().formatHex(digest, 0, 5), seed, messages, poison);
  }

  /** The run key: 10 hex digits. */
  public String key() {
    return key;
  }

  /** What every id of this run, and no id of another run, starts with. */
  public String prefix() {
    return prefix;
  }

  /** {@link #prefix()} as an SQL {@code LIKE} pattern (it holds no {@code %} or {@code _}). */
  public String likePattern() {
    return prefix + "%";
  }

  public int messages() {
    return messages;
  }

  public int poison() {
    return poison;
  }

  /** The id with index {@code index} (0-based). */
  public String id(int index) {
    if (index < 0 || index >= messages) {
      throw new IndexOutOfBoundsException("index " + index + " of " + messages + " ids");
    }
    String digits = Integer.toString(index);
    return prefix + "0".repeat(INDEX_DIGITS - digits.length()) + digits;
  }

  /**
   * The lowest id that is not poison: the poison ids are exactly this run's ids below it (in the
   * database's order too, since they differ only in equally long digit strings).
   */
  public String firstNonPoison() {
    String digits = Integer.toString(poison);
    return prefix + "0".repeat(Math.max(0, INDEX_DIGITS - digits.length())) + digits;
  }

  /** Whether {@code id} belongs to this run. */
  public boolean contains(String id) {
    return index(id) >= 0;
  }

  /** Whether {@code id} is one of this run's planted poison ids (the first {@link #poison()}). */
  public boolean isPoison(String id) {
    int index = index(id);
    return index >= 0 && index < poison;
  }

  /** The index of {@code id} in this run, or -1 if it is not one of its ids. */
  public int index(String id) {
    if (id == null || !id.startsWith(prefix) || id.length() != prefix.length() + INDEX_DIGITS) {
      return -1;
    }
    int index = 0;
    for (int i = prefix.length(); i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      index = index * 10 + (c - '0');
    }
    return index < messages ? index : -1;
  }

  @Override
  public String toString() {
    return prefix + "*";
  }
}
