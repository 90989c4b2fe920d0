package dev.archlab.inbox.outbox;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InvalidArgumentException;
import java.util.Arrays;
import java.util.Map;

/**
 * One message to send through the outbox: its id (what the receiving inbox deduplicates on), the
 * destination (a Kafka topic), an optional key (messages of one destination and key are published
 * in order), the payload and headers. Immutable; the constructor validates every part, so a bad
 * message is refused before anything is written.
 *
 * @param id the outgoing message id, a valid inbox message id (at most 255 characters)
 * @param destination where to publish it, 1 to {@value #MAX_DESTINATION_LENGTH} characters
 * @param key the ordering and partitioning key, at most {@value #MAX_KEY_LENGTH} characters, or
 *     null for none (keyless messages keep no order among themselves)
 * @param payload the body, copied; null is published as a null value (a Kafka tombstone)
 * @param headers extra headers, copied; null is taken as none
 */
public record OutboxMessage(
    String id, String destination, String key, byte[] payload, Map<String, String> headers) {

  /** Longest destination accepted, in UTF-16 characters (the column's length). */
  public static final int MAX_DESTINATION_LENGTH = 255;

  /** Longest key accepted, in UTF-16 characters (the column's length). */
  public static final int MAX_KEY_LENGTH = 255;

  /**
   * Validates and copies.
   *
   * @throws dev.archlab.inbox.InvalidMessageIdException if the id is not a valid message id
   * @throws InvalidArgumentException naming the part if the destination, key or headers are bad
   */
  public OutboxMessage {
    Identifiers.requireMessageId(id);
    requireText("destination", destination, MAX_DESTINATION_LENGTH);
    if (key != null) {
      requireText("key", key, MAX_KEY_LENGTH);
    }
    payload = payload == null ? null : payload.clone();
    if (headers != null
        && headers.entrySet().stream().anyMatch(e -> e.getKey() == null || e.getValue() == null)) {
      throw new InvalidArgumentException("outbox header names and values must not be null");
    }
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    HeaderCodec.requireEncodable(headers);
  }

  /**
   * A message with a new random id ({@link OutgoingIds#random()}) and no headers.
   *
   * @param destination where to publish it
   * @param key the ordering key, or null
   * @param payload the body
   * @return the validated message
   */
  public static OutboxMessage of(String destination, String key, byte[] payload) {
    return new OutboxMessage(OutgoingIds.random(), destination, key, payload, Map.of());
  }

  /**
   * This message with another id, such as one the caller derived from its own request.
   *
   * @param newId the id to send under
   * @return a copy with {@code newId}
   */
  public OutboxMessage withId(String newId) {
    return new OutboxMessage(newId, destination, key, payload, headers);
  }

  /**
   * This message with {@code newHeaders} instead of its headers.
   *
   * @param newHeaders the headers to send
   * @return a copy with {@code newHeaders}
   */
  public OutboxMessage withHeaders(Map<String, String> newHeaders) {
    return new OutboxMessage(id, destination, key, payload, newHeaders);
  }

  /** A copy of the payload, or null. */
  @Override
  public byte[] payload() {
    return payload == null ? null : payload.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxMessage m
        && id.equals(m.id)
        && destination.equals(m.destination)
        && java.util.Objects.equals(key, m.key)
        && Arrays.equals(payload, m.payload)
        && headers.equals(m.headers);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(id, destination, key, Arrays.hashCode(payload), headers);
  }

  @Override
  public String toString() {
    return "OutboxMessage[id="
        + id
        + ", destination="
        + destination
        + ", key="
        + key
        + ", payload="
        + (payload == null ? "null" : payload.length + " bytes")
        + ", headers="
        + headers.keySet()
        + "]";
  }

  private static void requireText(String what, String value, int max) {
    if (value == null || value.isBlank()) {
      throw new InvalidArgumentException("outbox " + what + " must not be null or blank");
    }
    if (value.length() > max) {
      throw new InvalidArgumentException(
          "outbox " + what + " is " + value.length() + " characters long, at most " + max);
    }
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      if (Character.isISOControl(ch) || Character.isSurrogate(ch)) {
        // Surrogates are checked pairwise below; control characters never survive a database.
        if (Character.isISOControl(ch)
            || !Character.isHighSurrogate(ch)
            || i + 1 >= value.length()
            || !Character.isLowSurrogate(value.charAt(i + 1))) {
          throw new InvalidArgumentException(
              "outbox "
                  + what
                  + " holds a control character or an unpaired surrogate at index "
                  + i);
        }
        i++;
      }
    }
  }
}
