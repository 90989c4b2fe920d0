package dev.archlab.inbox.outbox;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InvalidArgumentException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * The ids of outgoing messages. Every id is a UUID in its 36-character text form, so it fits any
 * receiving inbox's id limit (255 characters) whatever the consumer name and incoming id were.
 *
 * <ul>
 *   <li>{@link #derived} is a name-based UUID (version 5, SHA-1, RFC 9562) of the consumer name,
 *       the incoming message id and the position of the send in the handler (0, 1, 2, …). It is the
 *       same for every attempt at the message, on every instance, so a handler that runs again
 *       after a failure or a takeover sends the same ids, and the next service's inbox deduplicates
 *       anything sent twice. The three parts are length-prefixed before hashing, so ({@code "a/b"},
 *       {@code "c"}) and ({@code "a"}, {@code "b/c"}) never share an id.
 *   <li>{@link #random} is a UUID version 7 (a millisecond timestamp of the JVM clock, then random
 *       bits), for sends outside a handler that bring no id of their own. The timestamp only makes
 *       ids of one process roughly time-ordered; nothing in the outbox reads it.
 * </ul>
 *
 * Thread-safe.
 */
public final class OutgoingIds {

  /** The namespace of derived ids: fixed forever, or every id would change. */
  private static final UUID NAMESPACE = UUID.fromString("6a0e4c1e-8f3b-5d1a-9c7e-1b2f0d4e6a73");

  private static final SecureRandom RANDOM = new SecureRandom();

  private OutgoingIds() {}

  /**
   * The stable id of the {@code position}-th send (from 0) of the handler run for {@code messageId}
   * by {@code consumer}.
   *
   * @param consumer the consumer name, as the inbox validates it
   * @param messageId the incoming message id, as the inbox validates it
   * @param position the send's position in the handler, from 0
   * @return a version 5 UUID in text form, 36 characters
   * @throws dev.archlab.inbox.InvalidConsumerNameException if {@code consumer} is not a valid name
   * @throws dev.archlab.inbox.InvalidMessageIdException if {@code messageId} is not a valid id
   * @throws InvalidArgumentException if {@code position} is negative
   */
  public static String derived(String consumer, String messageId, int position) {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    if (position < 0) {
      throw new InvalidArgumentException("send position must be >= 0, was " + position);
    }
    byte[] c = consumer.getBytes(StandardCharsets.UTF_8);
    byte[] m = messageId.getBytes(StandardCharsets.UTF_8);
    ByteBuffer name = ByteBuffer.allocate(16 + 4 + c.length + 4 + m.length + 4);
    name.putLong(NAMESPACE.getMostSignificantBits()).putLong(NAMESPACE.getLeastSignificantBits());
    name.putInt(c.length).put(c).putInt(m.length).put(m).putInt(position);
    byte[] hash = sha1(name.array());
    hash[6] = (byte) ((hash[6] & 0x0f) | 0x50); // version 5
    hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // IETF variant
    return toUuid(hash).toString();
  }

  /**
   * A new random id: a version 7 UUID.
   *
   * @return a version 7 UUID in text form, 36 characters
   */
  public static String random() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    long millis = System.currentTimeMillis();
    for (int i = 0; i < 6; i++) {
      b[i] = (byte) (millis >>> (40 - 8 * i));
    }
    b[6] = (byte) ((b[6] & 0x0f) | 0x70); // version 7
    b[8] = (byte) ((b[8] & 0x3f) | 0x80); // IETF variant
    return toUuid(b).toString();
  }

  private static UUID toUuid(byte[] b) {
    ByteBuffer buf = ByteBuffer.wrap(b, 0, 16);
    return new UUID(buf.getLong(), buf.getLong());
  }

  private static byte[] sha1(byte[] input) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(input);
    } catch (NoSuchAlgorithmException e) {
      // Every Java platform must provide SHA-1 (java.security.MessageDigest's contract).
      throw new IllegalStateException("SHA-1 is missing from this Java runtime", e);
    }
  }
}
