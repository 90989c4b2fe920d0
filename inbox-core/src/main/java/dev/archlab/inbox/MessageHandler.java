package dev.archlab.inbox;

/**
 * The business effect of a message. Called only while this instance holds the claim; a normal
 * return means the effect happened, an exception means it did not and the message should be
 * retried.
 *
 * <p>Make the effect itself safe to repeat where you can (pass {@link Attempt#idempotencyKey()} to
 * an external provider): a handler that runs longer than its lease, or whose process dies after the
 * effect but before the record is DONE, can be run again by another instance.
 */
@FunctionalInterface
public interface MessageHandler {

  /**
   * Runs the business effect of one message while this instance holds its claim.
   *
   * @param message the delivered message
   * @param attempt the claimed attempt: its number, lease, extension and result keeping
   * @throws Exception if the effect did not happen; the attempt is recorded as failed and the
   *     message is retried or parked as DEAD by the retry policy
   */
  void handle(Message message, Attempt attempt) throws Exception;
}
