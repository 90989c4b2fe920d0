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
  /**
   * {@code IdempotentConsumer.asMode()} as the loop runs it by default: a poll's new ids of a
   * partition claimed in one statement, then each record's row and DONE in a transaction of its
   * own.
   */
  INBOX_PER_MESSAGE("inbox-per-message", false, BARE_RECORD),
  /**
   * {@code IdempotentConsumer.asMode()} with {@code maxRecordsPerCall(1)}: each record claimed
   * alone.
   */
  INBOX_PER_MESSAGE_SINGLE("inbox-per-message-single", false, BARE_RECORD),
  /**
   * {@code OneCommitConsumer.asMode()} as the loop runs it by default: a poll's records of a
   * partition as one one-commit batch (one multi-row claim inserted DONE, the handler's row per
   * record, one commit).
   */
  INBOX_ONE_COMMIT("inbox-one-commit", false, BARE_RECORD),
  /**
   * The raw-SQL floor of {@link #INBOX_ONE_COMMIT}: the same statements (multi-row claim, a row per
   * new record, one commit per partition and poll) from a bare loop ({@link KafkaFloorLoop}).
   */
  FLOOR_ONE_COMMIT("floor-one-commit", false, BARE_RECORD),
  /**
   * {@code OneCommitConsumer.asMode()} with {@code maxRecordsPerCall(1)}: a transaction per record.
   */
  INBOX_ONE_COMMIT_SINGLE("inbox-one-commit-single", false, BARE_RECORD),
  /** Plain loop: a poll's rows as one JDBC batch in one transaction; offsets committed per poll. */
  BARE_BATCH("bare-batch", true, null),
  /**
   * {@code BatchConsumer.asMode(n)}: claims committed first, then the poll's rows and DONE in one.
   */
  INBOX_BATCH("inbox-batch", true, BARE_BATCH),
  /**
   * {@code OneCommitConsumer.asMode()} of a consumer with a batch handler: a poll's records of a
   * partition as one one-commit batch whose rows go as one JDBC batch, as the bare batch loop's.
   */
  INBOX_ONE_COMMIT_BATCH("inbox-one-commit-batch", true, BARE_BATCH);

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
