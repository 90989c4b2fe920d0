package dev.archlab.inbox.ui;

import java.util.Map;

/**
 * An optional source of cumulative delivery outcomes for the operator page's chart: per consumer,
 * per outcome (e.g. {@code applied}, {@code duplicate}, {@code failed}), how many deliveries ended
 * that way since the source began counting. The page samples it on every refresh and plots the
 * difference between samples, so the totals must only grow while the page is open (a counter that
 * restarts shows as one interval without a rate, not as a negative one).
 *
 * <p>Implementations must be thread-safe: the page may ask from several requests at once. Without a
 * source (the command line, which has no meter registry) the page charts the state counts it
 * samples itself.
 */
@FunctionalInterface
public interface OutcomeCounts {

  /**
   * The running totals now.
   *
   * @return consumer name to outcome name to total; never null, may be empty
   */
  Map<String, Map<String, Long>> totals();
}
