package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.Attempt;
import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.jdbc.internal.StoreParts;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The attempt a one-commit handler runs under: the open transaction keeps the record's row, so
 * there is no heartbeat. Knows how to write DONE for itself in that transaction once the handler
 * returned. Used by one thread, inside one transaction.
 */
final class OneCommitAttempt implements Attempt {

  private final JdbcInboxStore store;
  private final StoreParts parts;
  private final Connection connection;
  private final Message message;
  private final InboxRecord insertedDone;
  private Claim claim;
  private byte[] result;

  /**
   * @param insertedDone the DONE record this transaction inserted for a new id, or null when an
   *     existing record was claimed (PROCESSING) and still has to be completed
   */
  OneCommitAttempt(
      JdbcInboxStore store,
      Connection connection,
      Message message,
      Claim claim,
      InboxRecord insertedDone) {
    this.store = store;
    this.parts = StoreParts.of(this.store);
    this.connection = connection;
    this.message = message;
    this.claim = claim;
    this.insertedDone = insertedDone;
  }

  /** The statements of this transaction's connection (detected on it already by the consumer). */
  private Statements statements() throws SQLException {
    return parts.jdbc().statementsFor(connection);
  }

  Message message() {
    return message;
  }

  Claim claim() {
    return claim;
  }

  @Override
  public String consumer() {
    return claim.consumer();
  }

  @Override
  public String messageId() {
    return claim.messageId();
  }

  @Override
  public int number() {
    return claim.fencingToken();
  }

  @Override
  public boolean isRetry() {
    return claim.fencingToken() > 1;
  }

  @Override
  public Instant leaseUntil() {
    return claim.leaseUntil();
  }

  /**
   * Extends inside the transaction; another connection would wait for this one's row lock. A record
   * this transaction inserted DONE has no lease to write: until the commit nobody else can see it,
   * let alone take it over, so only the nominal lease end moves.
   */
  @Override
  public Instant extendLease(Duration lease) {
    try {
      if (insertedDone != null) {
        ArgumentChecks.requirePositive(ArgumentChecks.requireValue(lease, "lease"), "lease");
        claim =
            claim.withLeaseUntil(parts.rows().currentTimeOn(connection, statements()).plus(lease));
      } else {
        claim = store.extend(connection, claim, lease);
      }
    } catch (SQLException e) {
      throw parts.jdbc().translate("extend lease", e);
    }
    return claim.leaseUntil();
  }

  @Override
  public void keepResult(byte[] bytes) {
    result = ConsumeSteps.checkedResult(bytes);
  }

  /** Writes DONE (and the kept result) in the transaction; returns the DONE record. */
  InboxRecord complete() throws SQLException {
    if (insertedDone == null) {
      return parts.rows().completeOn(connection, statements(), claim, result);
    }
    return result == null
        ? insertedDone
        : parts.rows().keepResultOn(connection, statements(), insertedDone, result);
  }
}
