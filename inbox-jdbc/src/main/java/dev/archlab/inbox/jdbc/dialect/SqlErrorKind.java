package dev.archlab.inbox.jdbc.dialect;

/** What an {@link java.sql.SQLException} means to the store. */
public enum SqlErrorKind {
  /** The connection is gone or could not be made. */
  CONNECTION,
  /** A unique key already exists. */
  UNIQUE_VIOLATION,
  /** Serialization failure or deadlock: the statement was rolled back and may be retried. */
  SERIALIZATION,
  /** A lock could not be had within the lock timeout; nothing was changed by the statement. */
  LOCK_TIMEOUT,
  /** The inbox table or a column does not exist. */
  SCHEMA_MISSING,
  /** Authentication or authorization failed. */
  ACCESS_DENIED,
  /** The database named by the connection does not exist (PostgreSQL 3D000, MariaDB 1049). */
  DATABASE_MISSING,
  /**
   * The schema (on MySQL and MariaDB: the database) that qualifies a table name does not exist, or
   * no schema is selected to create a table in (PostgreSQL 3F000, H2 90079).
   */
  NAMESPACE_MISSING,
  /** Anything else. */
  OTHER
}
