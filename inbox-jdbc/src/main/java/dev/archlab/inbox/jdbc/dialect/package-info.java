/**
 * One class per database family: the SQL of every store statement, the SQL expression for the
 * database's clock, how timestamps are bound and read, how a claim's lock wait is bounded, and what
 * each SQLState or vendor code means ({@link dev.archlab.inbox.jdbc.dialect.SqlErrorKind}).
 *
 * <p>{@link dev.archlab.inbox.jdbc.dialect.JdbcDialect#detect} picks a dialect from the
 * connection's {@link java.sql.DatabaseMetaData} (a MariaDB server that calls itself "MySQL" is
 * recognised by its version string) and refuses an unknown product with {@link
 * dev.archlab.inbox.InvalidConfigurationException}; a dialect passed to the store's builder is used
 * as it is, without detection. Dialects build SQL only from constants and the validated table name;
 * every value is a bind parameter. Instances are immutable and thread-safe.
 */
package dev.archlab.inbox.jdbc.dialect;
