package dev.archlab.inbox;

import java.time.Duration;

/**
 * How long DONE records are kept, checked against how long the broker may still redeliver a
 * message. A redelivery that arrives after its record was pruned is applied again — the designed
 * edge of the window — so the retention must be strictly longer than the broker's redelivery
 * window, and construction refuses anything else.
 *
 * @param retention how long a DONE record is kept after it was last updated
 * @param redeliveryWindow the longest time after which the broker may still redeliver a message
 *     (retry topics, DLQ replays, consumer-group rewinds you allow)
 */
public record DedupWindow(Duration retention, Duration redeliveryWindow) {

  /** 7 days of retention against a 1 day redelivery window. */
  public static final DedupWindow DEFAULT = new DedupWindow(Duration.ofDays(7), Duration.ofDays(1));

  /**
   * Validates the window.
   *
   * @param retention how long a DONE record is kept after it was last updated
   * @param redeliveryWindow the longest time after which the broker may still redeliver a message
   * @throws InvalidConfigurationException if either duration is missing or not positive, or the
   *     retention is not longer than the redelivery window
   */
  public DedupWindow {
    RetryPolicy.requirePositive(retention, "dedup retention");
    RetryPolicy.requirePositive(redeliveryWindow, "broker redelivery window");
    if (retention.compareTo(redeliveryWindow) <= 0) {
      throw new InvalidConfigurationException(
          "dedup retention ("
              + retention
              + ") must be longer than the broker redelivery window ("
              + redeliveryWindow
              + "): a message redelivered after its record was pruned would be applied twice");
    }
  }

  /**
   * Same as the constructor.
   *
   * @param retention how long a DONE record is kept after it was last updated
   * @param redeliveryWindow the longest time after which the broker may still redeliver a message
   * @return the validated window
   * @throws InvalidConfigurationException if either duration is missing or not positive, or the
   *     retention is not longer than the redelivery window
   */
  public static DedupWindow of(Duration retention, Duration redeliveryWindow) {

    return new DedupWindow(retention, redeliveryWindow);
  }
}
