package dev.archlab.inbox;

/**
 * The rules for message ids and consumer names, the same ones the consumers and every store apply:
 * tools that take an id or a name from people (a command line, a form) check it here first and get
 * the same refusal, with the same reason, that the library would give.
 *
 * <p>A valid id or name is non-null, not blank, at most its limit long ({@link
 * Message#MAX_ID_LENGTH}, {@link IdempotentConsumer#MAX_CONSUMER_NAME_LENGTH}), and free of control
 * characters and unpaired surrogates (neither survives a database); a consumer name has no
 * surrounding whitespace either.
 */
public final class Identifiers {
  private Identifiers() {}

  /**
   * Returns {@code id} unchanged if it is a valid message id.
   *
   * @param id the message id
   * @return {@code id}
   * @throws InvalidMessageIdException saying why it is not
   */
  public static String requireMessageId(String id) {
    return requireMessageId(id, Message.MAX_ID_LENGTH);
  }

  /**
   * Returns {@code name} unchanged if it is a valid consumer name.
   *
   * @param name the logical consumer name
   * @return {@code name}
   * @throws InvalidConsumerNameException saying why it is not
   */
  public static String requireConsumerName(String name) {
    return requireConsumerName(name, IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
  }

  /** Returns {@code id} unchanged, or throws {@link InvalidMessageIdException} saying why. */
  static String requireMessageId(String id, int maxLength) {
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
  static String requireConsumerName(String name, int maxLength) {
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

  /** A short, printable rendering of a possibly huge or null value for error messages. */
  static String quote(String value) {
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
