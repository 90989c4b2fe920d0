package dev.archlab.inbox.internal;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.InvalidMessageIdException;

/** Validation of message ids and consumer names, shared by the API and every store. */
public final class Identifiers {
  private Identifiers() {}

  /** Returns {@code id} unchanged, or throws {@link InvalidMessageIdException} saying why. */
  public static String requireMessageId(String id, int maxLength) {
    String problem = problem(id, maxLength);
    if (problem != null) {
      throw new InvalidMessageIdException("invalid message id " + quote(id) + ": " + problem);
    }
    return id;
  }

  /**
   * Returns {@code name} unchanged, or throws {@link InvalidConsumerNameException} saying why.
   * Unlike a message id (the producer's, compared byte for byte), a consumer name is typed by
   * people: surrounding whitespace is refused, since {@code " orders"} would silently be a second
   * consumer with its own records.
   */
  public static String requireConsumerName(String name, int maxLength) {
    String problem = problem(name, maxLength);
    if (problem == null
        && (isSpace(name.codePointAt(0)) || isSpace(name.codePointBefore(name.length())))) {
      problem = "starts or ends with whitespace (a different consumer from the trimmed name)";
    }
    if (problem != null) {
      throw new InvalidConsumerNameException(
          "invalid consumer name " + quote(name) + ": " + problem);
    }
    return name;
  }

  private static String problem(String value, int maxLength) {
    if (value == null) {
      return "must not be null";
    }
    // One pass, no streams: this runs several times per message on the hot path.
    boolean blank = true;
    String problem = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c > ' ' && c < 0x7F) {
        // Printable ASCII other than space, nearly every id: valid and not blank.
        blank = false;
        continue;
      }
      int cp = c;
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        cp = Character.toCodePoint(c, value.charAt(i + 1));
        i++;
      } else if (Character.isSurrogate(c)) {
        // An unpaired surrogate has no UTF-8 encoding; a database would mangle or reject it.
        problem =
            problem != null
                ? problem
                : "contains an unpaired surrogate at index " + i + " (not valid UTF-8)";
      } else if (Character.isISOControl(c)) {
        // NUL and friends cannot be stored in PostgreSQL text and make ids unreadable in logs.
        problem =
            problem != null
                ? problem
                : "contains control character U+"
                    + String.format("%04X", (int) c)
                    + " at index "
                    + i;
      }
      // isBlank() alone lets through ids made only of no-break spaces (U+00A0, U+2007, U+202F).
      if (blank && !Character.isWhitespace(cp) && !Character.isSpaceChar(cp)) {
        blank = false;
      }
    }
    if (blank) {
      return "must not be blank";
    }
    if (value.length() > maxLength) {
      return "is " + value.length() + " characters long, the limit is " + maxLength;
    }
    return problem;
  }

  private static boolean isSpace(int cp) {
    return Character.isWhitespace(cp) || Character.isSpaceChar(cp);
  }

  /**
   * Returns {@code value}, or throws {@link InvalidArgumentException} naming {@code what} if it is
   * null: the consumer API refuses every value with that exception type, nulls included.
   */
  public static <T> T requireValue(T value, String what) {
    if (value == null) {
      throw new InvalidArgumentException(what + " must not be null");
    }
    return value;
  }

  /** A short, printable rendering of a possibly huge or null value for error messages. */
  public static String quote(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("'");
    int shown = Math.min(value.length(), 40);
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c) || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('\'');
    if (value.length() > shown) {
      out.append("... (").append(value.length()).append(" chars)");
    }
    return out.toString();
  }
}
