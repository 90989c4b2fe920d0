package dev.archlab.inbox.ui;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.RecordState;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the page's parameters, each refusal a 400 whose message names the parameter and the value.
 */
final class Params {

  static final int DEFAULT_LIMIT = 50;
  static final int MAX_LIMIT = 1000;

  private final Map<String, String> values;

  Params(Map<String, String> values) {
    this.values = values;
  }

  /** The value, stripped; null when absent or blank. */
  String optional(String name) {
    String v = values.get(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  String required(String name) {
    String v = optional(name);
    if (v == null) {
      throw badRequest("missing parameter '" + name + "'");
    }
    return v;
  }

  /**
   * A consumer name as given, validated by the core's rules (which refuse surrounding whitespace: "
   * orders" would be a second consumer); null when absent and not required.
   */
  String consumer(boolean required) {
    String v = values.get("consumer");
    if (v == null || v.isEmpty()) {
      if (required) {
        throw badRequest("missing parameter 'consumer'");
      }
      return null;
    }
    return Identifiers.requireConsumerName(v);
  }

  /** A message id as given (ids are compared byte for byte, so not stripped), validated. */
  String messageId() {
    String v = values.get("id");
    if (v == null || v.isEmpty()) {
      throw badRequest("missing parameter 'id'");
    }
    return Identifiers.requireMessageId(v);
  }

  RecordState state() {
    String v = required("state");
    try {
      return RecordState.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw badRequest("unknown state '" + v + "': use PROCESSING, DONE or DEAD");
    }
  }

  int limit() {
    String v = optional("limit");
    if (v == null) {
      return DEFAULT_LIMIT;
    }
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > MAX_LIMIT) {
      throw badRequest("limit must be a whole number from 1 to " + MAX_LIMIT + ", was '" + v + "'");
    }
    return n;
  }

  /** A duration written like the command's options: 500ms, 2s, 5m, 36h, 7d. */
  Duration duration(String name, Duration fallback) {
    String v = optional(name);
    if (v == null) {
      return fallback;
    }
    return DurationText.parse(v)
        .orElseThrow(
            () -> badRequest("invalid " + name + " '" + v + "': " + DurationText.EXPECTED));
  }

  static UiRequestException badRequest(String message) {
    return new UiRequestException(400, message);
  }
}
