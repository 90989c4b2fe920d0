package dev.archlab.inbox.cli;

import java.time.Duration;

/**
 * One consumer's records at a glance, the same for every store.
 *
 * @param consumer the consumer name
 * @param processing records in PROCESSING (running, or waiting for a retry)
 * @param done records in DONE (on Redis: those not yet expired)
 * @param dead records in DEAD
 * @param expiredLeases PROCESSING records whose lease or retry time has passed (stuck, if it stays
 *     high)
 * @param oldestProcessingAge how long the oldest PROCESSING record has existed; zero when none
 * @param pastRetention DONE records not updated for the retention, waiting to be pruned
 */
record OperatorStats(
    String consumer,
    long processing,
    long done,
    long dead,
    long expiredLeases,
    Duration oldestProcessingAge,
    long pastRetention) {}
