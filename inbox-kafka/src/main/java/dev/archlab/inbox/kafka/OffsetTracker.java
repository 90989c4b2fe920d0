package dev.archlab.inbox.kafka;

import java.util.OptionalLong;

/**
 * The committable offset of one partition. Records are reported in offset order as finished (their
 * offset may be passed) or unfinished (the first record that must be delivered again). The offset
 * to commit is the one after the last finished record and never passes the first unfinished one, so
 * a crash or a rebalance after a commit can only redeliver, never skip. Not thread-safe: only the
 * polling thread uses it.
 */
final class OffsetTracker {

  private static final long NONE = -1;

  private long next = NONE; // offset after the last finished record
  private long blockedAt = NONE; // first record that must be delivered again
  private long committed = NONE;

  /**
   * Records that the record at {@code offset} is finished (APPLIED, DUPLICATE, or DEAD and
   * dead-lettered).
   *
   * @throws IllegalStateException if a record before it is unfinished: finishing it would let the
   *     commit pass unfinished work
   */
  void finished(long offset) {
    requireOffset(offset);
    if (blockedAt != NONE && offset > blockedAt) {
      throw new IllegalStateException(
          "record at offset " + offset + " reported finished while " + blockedAt + " is not");
    }
    if (offset == blockedAt) {
      blockedAt = NONE;
    }
    next = Math.max(next, offset + 1);
  }

  /** Records that the record at {@code offset} is not finished and will be delivered again. */
  void unfinished(long offset) {
    requireOffset(offset);
    if (blockedAt == NONE || offset < blockedAt) {
      blockedAt = offset;
    }
  }

  /** The offset to commit now, if it is ahead of the last commit. */
  OptionalLong toCommit() {
    if (next == NONE || next <= committed) {
      return OptionalLong.empty();
    }
    // next never passes blockedAt: finished() refuses offsets beyond it.
    return OptionalLong.of(next);
  }

  /** Records that {@code offset} was committed. */
  void committed(long offset) {
    committed = Math.max(committed, offset);
  }

  /** The first unfinished offset, if any. */
  OptionalLong blockedAt() {
    return blockedAt == NONE ? OptionalLong.empty() : OptionalLong.of(blockedAt);
  }

  private static void requireOffset(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, was " + offset);
    }
  }
}
