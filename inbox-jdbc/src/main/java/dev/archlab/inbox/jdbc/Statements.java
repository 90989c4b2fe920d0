package dev.archlab.inbox.jdbc;

import dev.archlab.inbox.jdbc.dialect.JdbcDialect;

/** Every statement on the inbox table, built once from the dialect and the validated table name. */
final class Statements {

  /** A fenced UPDATE, plain and (where the database can) returning the row. */
  record FencedSql(String plain, String returning) {}

  final JdbcDialect dialect;
  final String insert;
  final String insertDone;
  final String keepResult;
  final String select;
  final String selectWithNow;
  final String takeover;
  final FencedSql complete;
  final FencedSql fail;
  final FencedSql markDead;
  final FencedSql extend;
  final String pruneAll;
  final String pruneConsumer;
  final String listAll;
  final String listConsumer;
  final String now;

  Statements(JdbcDialect d, TableName table) {
    this.dialect = d;
    String t = table.value();
    String key = " WHERE consumer = ? AND message_id = ?";
    String fence = key + " AND attempts = ? AND state = 'PROCESSING'";
    insert = d.insertIfAbsent(t);
    insertDone = d.insertDoneIfAbsent(t);
    keepResult = "UPDATE " + t + " SET result = ?" + key + " AND state = 'DONE'";
    select = "SELECT " + JdbcDialect.COLUMNS + " FROM " + t + key;
    selectWithNow = "SELECT " + JdbcDialect.COLUMNS + ", " + d.now() + " AS db_now FROM " + t + key;
    // attempts is assigned last: MySQL evaluates SET clauses left to right.
    takeover =
        "UPDATE "
            + t
            + " SET state = ?, lease_until = ?, updated_at = ?, last_error = ?, attempts = ?"
            + key
            + " AND state = 'PROCESSING' AND attempts = ? AND lease_until <= ?";
    complete =
        fencedSql(
            d,
            "UPDATE "
                + t
                + " SET state = 'DONE', lease_until = NULL, updated_at = "
                + d.now()
                + ", result = ?"
                + fence);
    fail =
        fencedSql(
            d,
            "UPDATE "
                + t
                + " SET lease_until = "
                + d.nowPlusMicros()
                + ", updated_at = "
                + d.now()
                + ", last_error = ?"
                + fence);
    markDead =
        fencedSql(
            d,
            "UPDATE "
                + t
                + " SET state = 'DEAD', lease_until = NULL, updated_at = "
                + d.now()
                + ", last_error = ?"
                + fence);
    extend =
        fencedSql(
            d,
            "UPDATE "
                + t
                + " SET lease_until = "
                + d.nowPlusMicros()
                + ", updated_at = "
                + d.now()
                + fence);
    pruneAll = d.pruneBatch(t, false);
    pruneConsumer = d.pruneBatch(t, true);
    String list = "SELECT " + JdbcDialect.COLUMNS + " FROM " + t + " WHERE state = ?";
    String order = " ORDER BY created_at, consumer, message_id " + d.limit();
    listAll = list + order;
    listConsumer = list + " AND consumer = ?" + order;
    now = "SELECT " + d.now() + " AS db_now";
  }

  private static FencedSql fencedSql(JdbcDialect d, String update) {
    return new FencedSql(update, d.updateReturning(update));
  }
}
