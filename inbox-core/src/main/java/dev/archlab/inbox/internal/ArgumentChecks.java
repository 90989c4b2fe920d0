package dev.archlab.inbox.internal;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import java.time.Duration;
import java.util.Objects;

/**
 * The argument checks that stores and consumers share, in one place so a bad value is refused with
 * the same exception and the same message wherever it enters: {@link InvalidArgumentException}
 * naming the argument and the value it had.
 */
public final class ArgumentChecks {

  private ArgumentChecks() {}

  /**
   * Returns {@code value} if it is present: the consumer API refuses every bad value with {@link
   * InvalidArgumentException}, nulls included.
   *
   * @param <T> the value's type
   * @param value the value
   * @param what the argument's name, for the message
   * @return {@code value}
   * @throws InvalidArgumentException if {@code value} is null
   */
  public static <T> T requireValue(T value, String what) {
    if (value == null) {
      throw new InvalidArgumentException(what + " must not be null");
    }
    return value;
  }

  /**
   * Returns {@code d} if it is longer than zero.
   *
   * @param d the duration, for example a lease
   * @param name the argument's name, for the message
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null
   * @throws InvalidArgumentException if {@code d} is zero or negative
   */
  public static Duration requirePositive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new InvalidArgumentException(name + " must be positive, was " + d);
    }
    return d;
  }

  /**
   * Returns {@code d} if it is zero or longer.
   *
   * @param d the duration, for example a retry delay
   * @param name the argument's name, for the message
   * @return {@code d}
   * @throws NullPointerException if {@code d} is null
   * @throws InvalidArgumentException if {@code d} is negative
   */
  public static Duration requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new InvalidArgumentException(name + " must not be negative, was " + d);
    }
    return d;
  }

  /**
   * Returns {@code result} if a record can keep it.
   *
   * @param result the bytes to keep with a record; null for none
   * @return {@code result}, not copied
   * @throws InvalidArgumentException if it is over {@link InboxRecord#MAX_RESULT_BYTES}
   */
  public static byte[] requireResultSize(byte[] result) {
    if (result != null && result.length > InboxRecord.MAX_RESULT_BYTES) {
      throw new InvalidArgumentException(
          "result of "
              + result.length
              + " bytes exceeds the limit of "
              + InboxRecord.MAX_RESULT_BYTES
              + " bytes");
    }
    return result;
  }

  /**
   * Returns {@code limit} if it is zero or more.
   *
   * @param limit the most records a read may return
   * @return {@code limit}
   * @throws InvalidArgumentException if it is negative
   */
  public static int requireLimit(int limit) {
    if (limit < 0) {
      throw new InvalidArgumentException("limit must be >= 0, was " + limit);
    }
    return limit;
  }
}
