package dev.archlab.inbox.jdbc.internal;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.jdbc.JdbcInboxStore.BatchCompletion;
import dev.archlab.inbox.jdbc.dialect.Statements;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.BeginResult.Kind;
import dev.archlab.inbox.store.RecordStateMachine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Batch claims and completions of one consumer on a connection the caller holds: new ids claimed by
 * one multi-row insert where the dialect can say which rows it added (else one by one, the same
 * answers), the rest decided from one read; completions by one fenced statement per chunk, each
 * refusal explained like a single {@code complete} would.
 */
public final class InboxBatches {

  /** Most ids per batch statement; longer batches are cut into chunks of this size. */
  public static final int MAX_BATCH = 500;

  private final InboxTable rows;

  public InboxBatches(InboxTable rows) {
    this.rows = rows;
  }

  /**
   * Returns {@code requests} if they all name one consumer.
   *
   * @throws InvalidArgumentException if they name more than one
   */
  public static List<BeginRequest> requireOneConsumer(List<BeginRequest> requests) {
    Objects.requireNonNull(requests, "requests");
    for (BeginRequest r : requests) {
      String consumer = requests.get(0).consumer();
      if (!r.consumer().equals(consumer)) {
        throw new InvalidArgumentException(
            "a batch holds one consumer's messages; got '"
                + consumer
                + "' and '"
                + r.consumer()
                + "'");
      }
    }
    return requests;
  }

  /** Completes {@code claims} on {@code c} (in autocommit) in one transaction it commits. */
  public List<BatchCompletion> completeBatchCommitted(
      Connection c, Statements s, List<Claim> claims) throws SQLException {
    try (LocalTransaction tx = new LocalTransaction(c)) {
      List<BatchCompletion> done = completeBatchOn(c, s, claims);
      tx.commit();
      return done;
    }
  }

  public List<BeginResult> beginBatchOn(Connection c, Statements s, List<BeginRequest> requests)
      throws SQLException {
    Map<String, BeginRequest> firsts = new LinkedHashMap<>();
    for (BeginRequest r : requests) {
      firsts.putIfAbsent(r.messageId(), r);
    }
    Map<String, BeginResult> decided = new HashMap<>();
    List<BeginRequest> distinct = new ArrayList<>(firsts.values());
    for (int from = 0; from < distinct.size(); from += MAX_BATCH) {
      List<BeginRequest> chunk =
          distinct.subList(from, Math.min(distinct.size(), from + MAX_BATCH));
      if (!s.supportsBatchInsert()) {
        for (BeginRequest r : chunk) {
          decided.put(r.messageId(), rows.beginOn(c, s, r));
        }
        continue;
      }
      for (InboxRecord inserted : s.batchInsertIfAbsent(c, chunk, false, "")) {
        decided.put(
            inserted.messageId(), BeginResult.of(Kind.CLAIMED, inserted, inserted.createdAt()));
      }
      List<BeginRequest> existing = new ArrayList<>();
      for (BeginRequest r : chunk) {
        if (!decided.containsKey(r.messageId())) {
          existing.add(r);
        }
      }
      if (existing.isEmpty()) {
        continue;
      }
      Map<String, InboxTable.Snapshot> snaps = rows.selectManyWithNow(c, s, existing);
      for (BeginRequest r : existing) {
        InboxTable.Snapshot snap = snaps.get(r.messageId());
        BeginResult result = snap == null ? null : rows.decide(c, s, r, snap);
        // Pruned or raced since the insert: settle this one the single-message way.
        decided.put(r.messageId(), result != null ? result : rows.beginOn(c, s, r));
      }
    }
    List<BeginResult> out = new ArrayList<>(requests.size());
    Set<String> seen = new HashSet<>();
    for (BeginRequest r : requests) {
      BeginResult first = decided.get(r.messageId());
      if (seen.add(r.messageId()) || !first.claimed()) {
        out.add(first);
      } else {
        // A repeat of an id this batch just claimed: the same answer a second delivery gets.
        out.add(BeginResult.of(Kind.IN_FLIGHT, first.record(), first.storeTime()));
      }
    }
    return List.copyOf(out);
  }

  /**
   * Claims the ids of {@code requests} (distinct, one consumer) that have no record: one multi-row
   * insert per chunk where the dialect has one, else one insert each. Returns the new records.
   */
  public List<InboxRecord> claimNewOn(Connection c, Statements s, List<BeginRequest> requests)
      throws SQLException {
    List<InboxRecord> inserted = new ArrayList<>();
    for (int from = 0; from < requests.size(); from += MAX_BATCH) {
      List<BeginRequest> chunk =
          requests.subList(from, Math.min(requests.size(), from + MAX_BATCH));
      if (s.supportsBatchInsert()) {
        inserted.addAll(s.batchInsertIfAbsent(c, chunk, false, ""));
        continue;
      }
      for (BeginRequest r : chunk) {
        InboxRecord record = rows.tryInsert(c, s, r);
        if (record != null) {
          inserted.add(record);
        }
      }
    }
    return inserted;
  }

  /** Deletes each first claim that is still PROCESSING at attempt 1, as one JDBC batch. */
  public void unclaimFirstOn(Connection c, Statements s, List<Claim> claims) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(s.unclaimFirst)) {
      for (Claim claim : claims) {
        ps.setString(1, claim.consumer());
        ps.setString(2, claim.messageId());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  public List<BatchCompletion> completeBatchOn(Connection c, Statements s, List<Claim> claims)
      throws SQLException {
    if (claims.isEmpty()) {
      return List.of();
    }
    String consumer = claims.get(0).consumer();
    Map<String, Claim> byId = new LinkedHashMap<>();
    for (Claim claim : claims) {
      if (!claim.consumer().equals(consumer)) {
        throw new InvalidArgumentException(
            "a batch holds one consumer's claims; got '"
                + consumer
                + "' and '"
                + claim.consumer()
                + "'");
      }
      if (byId.putIfAbsent(claim.messageId(), claim) != null) {
        throw new InvalidArgumentException(
            "claim for message '" + claim.messageId() + "' appears twice in one batch");
      }
    }
    Map<String, InboxRecord> completed = new HashMap<>();
    List<Claim> distinct = new ArrayList<>(byId.values());
    for (int from = 0; from < distinct.size(); from += MAX_BATCH) {
      List<Claim> chunk = distinct.subList(from, Math.min(distinct.size(), from + MAX_BATCH));
      for (InboxRecord done : s.batchComplete(c, chunk)) {
        completed.put(done.messageId(), done);
      }
    }
    List<BatchCompletion> out = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      InboxRecord done = completed.get(claim.messageId());
      if (done != null) {
        out.add(new BatchCompletion(claim, done, null));
        continue;
      }
      InboxRecord current = rows.select(c, s, claim.consumer(), claim.messageId());
      out.add(new BatchCompletion(claim, null, RecordStateMachine.refusal(claim, current)));
    }
    return List.copyOf(out);
  }
}
