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

  void onDead(Message message, InboxRecord record) throws Exception;
}
