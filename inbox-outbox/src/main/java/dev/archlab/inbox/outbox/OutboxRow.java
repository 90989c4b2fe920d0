package dev.archlab.inbox.outbox;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * One claimed outbox row, as a relay hands it to its {@link OutboxPublisher}. Immutable.
 *
 * @param seq the row's sequence number: rows of one destination and key are published in its order
 * @param id the outgoing message id, to publish with the message (the receiving inbox deduplicates
 *     on it)
 * @param destination where to publish
 * @param key the ordering key, or null
 * @param payload the body, or null; copied
 * @param headers the headers given at send time
 * @param attempts publish attempts before this one (0 for a first publish)
 */
public record OutboxRow(
    long seq,
    String id,
    String destination,
    String key,
    byte[] payload,
    Map<String, String> headers,
    int attempts) {

  /** Copies the payload and headers. */
  public OutboxRow {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(destination, "destination");
    payload = payload == null ? null : payload.clone();
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  /** A copy of the payload, or null. */
  @Override
  public byte[] payload() {
    return payload == null ? null : payload.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxRow r
        && seq == r.seq
        && id.equals(r.id)
        && destination.equals(r.destination)
        && Objects.equals(key, r.key)
        && Arrays.equals(payload, r.payload)
        && headers.equals(r.headers)
        && attempts == r.attempts;
  }

  @Override
  public int hashCode() {
    return Objects.hash(seq, id, destination, key, Arrays.hashCode(payload), headers, attempts);
  }

  @Override
  public String toString() {
    return "OutboxRow[seq="
        + seq
        + ", id="
        + id
        + ", destination="
        + destination
        + ", key="
        + key
        + "]";
  }
}
