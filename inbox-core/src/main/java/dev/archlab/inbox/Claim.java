package dev.archlab.inbox;

import java.time.Instant;
import java.util.Objects;

/**
 * The right to run the effect of one message, handed out by a store's {@code begin}. The fencing
 * token is the record's attempt number at the time of the claim: every fenced operation succeeds
 * only while the record still holds this token in state PROCESSING, so an owner whose lease expired
 * and was taken over cannot complete, fail or extend any more.
 *
 * @param consumer the logical consumer name
 * @param messageId the producer-made message id
 * @param fencingToken the attempt number this claim owns (1 for the first claim)
 * @param leaseUntil the end of the lease, in the store's clock
 */
public record Claim(String consumer, String messageId, int fencingToken, Instant leaseUntil) {
  /**
   * Validates every component.
   *
   * @param consumer the logical consumer name
   * @param messageId the producer-made message id
   * @param fencingToken the attempt number this claim owns, at least 1
   * @param leaseUntil the end of the lease, in the store's clock
   * @throws NullPointerException if {@code leaseUntil} is null
   * @throws InvalidArgumentException if {@code fencingToken} is below 1, or a subclass of it for an
   *     invalid consumer name or message id
   */
  public Claim {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    if (fencingToken < 1) {
      throw new InvalidArgumentException("fencingToken must be >= 1, was " + fencingToken);
    }
    Objects.requireNonNull(leaseUntil, "leaseUntil");
  }

  /**
   * The same claim with a new lease end, as returned by an extension.
   *
   * @param newLeaseUntil the new end of the lease, in the store's clock
   * @return a claim with this consumer, message id and fencing token and the new lease end
   * @throws NullPointerException if {@code newLeaseUntil} is null
   */
  public Claim withLeaseUntil(Instant newLeaseUntil) {
    return new Claim(consumer, messageId, fencingToken, newLeaseUntil);
  }
}
