package dev.archlab.inbox.store;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.internal.ArgumentChecks;
import java.time.Duration;

/**
 * A request to claim one message. Validated on construction, so every store receives only legal
 * input.
 *
 * @param consumer the logical consumer name
 * @param messageId the producer-made id
 * @param lease how long the claim excludes others, measured in the store's clock
 * @param maxAttempts a takeover of an expired claim that already used this many attempts parks the
 *     record as DEAD instead of claiming it
 * @param payloadHash fingerprint of the payload to record or compare; null to skip the check
 */
public record BeginRequest(
    String consumer, String messageId, Duration lease, int maxAttempts, String payloadHash) {

  /**
   * Validates every component.
   *
   * @param consumer the logical consumer name
   * @param messageId the producer-made id
   * @param lease how long the claim excludes others; must be positive
   * @param maxAttempts the attempt limit of a takeover; at least 1
   * @param payloadHash fingerprint of the payload; null to skip the check
   * @throws NullPointerException if {@code lease} is null
   * @throws InvalidArgumentException if the lease is not positive or maxAttempts is below 1 (ids
   *     and names: their own subclasses of it)
   */
  public BeginRequest {
    Identifiers.requireConsumerName(consumer);
    Identifiers.requireMessageId(messageId);
    ArgumentChecks.requirePositive(lease, "lease");
    if (maxAttempts < 1) {
      throw new InvalidArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
  }
}
