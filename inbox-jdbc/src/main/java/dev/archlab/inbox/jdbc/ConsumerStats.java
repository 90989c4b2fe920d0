package dev.archlab.inbox.jdbc;

import java.time.Duration;

/**
 * One consumer's records at a glance, for operators.
 *
 * @param consumer the consumer name
 * @param processing records in PROCESSING (running, or waiting for a retry)
 * @param done records in DONE
 * @param dead records in DEAD
 * @param expiredLeases PROCESSING records whose lease or retry time has passed: their owner died or
 *     nobody redelivered them yet (stuck, if it stays high)
 * @param oldestProcessingAge how long the oldest PROCESSING record has existed; zero when none
 * @param pastRetention DONE records older than the retention, waiting to be pruned
 */
public record ConsumerStats(
    String consumer,
    long processing,
    long done,
    long dead,
    long expiredLeases,
    Duration oldestProcessingAge,
    long pastRetention) {}
