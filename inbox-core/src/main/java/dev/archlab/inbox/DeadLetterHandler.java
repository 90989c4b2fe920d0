package dev.archlab.inbox;

/**
 * Runs once when a message is parked as DEAD: after its last failed attempt, or when a takeover
 * finds that the message crashed the process on every attempt. It runs on the instance whose store
 * write made the record DEAD, which the store guarantees is exactly one. If it throws, the record
 * stays DEAD and the failure is logged; it is not run again.
 */
@FunctionalInterface
public interface DeadLetterHandler {

  /** Does nothing; the DEAD record itself is the dead letter, visible through the store. */
  DeadLetterHandler NONE = (message, record) -> {};

  /**
   * Handles a message that was just parked as DEAD.
   *
   * @param message the message as it was delivered on the attempt that made the record DEAD
   * @param record the DEAD record, with its attempts and last error
   * @throws Exception for any failure; it is logged, the record stays DEAD and the handler is not
   *     run again for this message
   */
  void onDead(Message message, InboxRecord record) throws Exception;
}
