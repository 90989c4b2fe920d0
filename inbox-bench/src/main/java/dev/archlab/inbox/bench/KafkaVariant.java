package dev.archlab.inbox.bench;

/**
 * The consumer loops the Kafka run compares. Each one, for every record, inserts one row into
 * {@link KafkaRun#EFFECT_TABLE} (the same statement for all) and commits the offsets of what it
 * finished. The bare loops are plain at-least-once {@code KafkaConsumer} loops with no dedup; the
 * inbox ones are {@code KafkaInboxLoop} in each {@code ConsumeMode}. A variant is compared with the
 * bare loop of the same shape ({@link #baseline()}).
 */
enum KafkaVariant {
  /** Plain loop: each record's row in its own autocommit insert; offsets committed per poll. */
  BARE_RECORD("bare-record", false, null),
  /** {@code ConsumeMode.perMessage}: a claim committed first, then the row and DONE in one. */
  INBOX_PER_MESSAGE("inbox-per-message", false, BARE_RECORD),
  /** {@code ConsumeMode.oneCommit}: the claim (inserted DONE) and the row in one transaction. */
  INBOX_ONE_COMMIT("inbox-one-commit", false, BARE_RECORD),
  /** Plain loop: a poll's rows as one JDBC batch in one transaction; offsets committed per poll. */
  BARE_BATCH("bare-batch", true, null),
  /** {@code ConsumeMode.batch}: a poll's records of one partition in one transaction. */
  INBOX_BATCH("inbox-batch", true, BARE_BATCH);

  private final String label;
  private final boolean batch;
  private final KafkaVariant baseline;

  KafkaVariant(String label, boolean batch, KafkaVariant baseline) {
    this.label = label;
    this.batch = batch;
    this.baseline = baseline;
  }

  /** The name in CSVs, reports and on the command line. */
  String label() {
    return label;
  }

  /** Whether it consumes a poll at a time (and so reads the larger batch topic). */
  boolean batch() {
    return batch;
  }

  /** The bare loop of the same shape; null for a bare loop. */
  KafkaVariant baseline() {
    return baseline;
  }

  static KafkaVariant byLabel(String label) {
    for (KafkaVariant v : values()) {
      if (v.label.equals(label)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown Kafka variant '" + label + "'");
  }
}
