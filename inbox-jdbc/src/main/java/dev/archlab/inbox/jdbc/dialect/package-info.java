/**
 * Everything that differs between databases, one class per database: how it is recognised (product
 * name, JDBC URL prefixes), its default isolation level, the SQL expression for its clock, how
 * timestamps are bound and read, how a lock wait is bounded, what each SQLState or vendor code
 * means ({@link dev.archlab.inbox.jdbc.dialect.SqlErrorKind}), and the catalogue of every statement
 * on the inbox table ({@link dev.archlab.inbox.jdbc.dialect.Statements}). No SQL on the inbox table
 * lives anywhere else, apart from the shipped DDL files.
 *
 * <p>{@link dev.archlab.inbox.jdbc.dialect.Dialects} is the one list of built-in dialects; {@link
 * dev.archlab.inbox.jdbc.dialect.JdbcDialect#detect} picks one from the connection's {@link
 * java.sql.DatabaseMetaData} (a MariaDB server that calls itself "MySQL" is recognised by its
 * version string) and refuses an unknown product with {@link
 * dev.archlab.inbox.InvalidConfigurationException}; a dialect passed to the store's builder is used
 * as it is, without detection. Dialects build SQL only from constants and the validated table name;
 * every value is a bind parameter. Instances are immutable and thread-safe.
 *
 * <h2>Adding a database</h2>
 *
 * <ol>
 *   <li>One dialect class here extending {@code JdbcDialect}: {@code name()} (also the DDL folder),
 *       {@code productName()}, {@code urlPrefixes()}, {@code now()}, {@code nowPlusMicros()}, and
 *       what differs from the defaults: {@code statements(table)} returning a subclass of {@code
 *       Statements} that overrides only the statements your database writes differently (at least
 *       the claim's insert-if-absent, unless a failed INSERT leaves the transaction usable), {@code
 *       classify} for its vendor codes, the lock-timeout plans, the time binding; for a file
 *       database, the connection check, the URL settings it requires and an embedded URL ({@code
 *       SqliteDialect} and {@code SqliteStatements} show all of these).
 *   <li>One DDL file, {@code dev/archlab/inbox/jdbc/schema/<name>/V1__create_inbox.sql}.
 *   <li>One test fixture, named by convention after the dialect class: for {@code XDialect}, the
 *       class {@code dev.archlab.inbox.jdbc.XDatabase} in the tests, a {@code TestDatabase} with a
 *       static {@code get()} that starts the database (lazily, once per JVM; stopped when the JVM
 *       exits) and whose {@code name()} is the dialect's. It answers, in its own SQL, what the
 *       shared suites ask of it: moving stored time back, filling a table, killing a session,
 *       listing lock waiters and indexes, a login it refuses. Where the database cannot do
 *       something (SQLite has no sessions), the fixture method aborts the test with the reason, so
 *       it reports as skipped.
 *   <li>One registration line: the dialect in {@code Dialects.ALL} (detection, the CLI's URL
 *       prefixes). The tests' {@code TestDatabases} derives its list from {@code Dialects} and
 *       finds each fixture by the convention above, failing every suite if one is missing. Every
 *       shared suite (contract, model, store, batch isolation, pool and restart, schema start-up)
 *       is a {@code ParameterizedClass} over that list, so it runs on the new database with no test
 *       class written for it; {@code -Dinbox.test.databases=<name>} (the dialect's name) runs the
 *       suites on it alone.
 * </ol>
 *
 * <p>Nothing else in the project lists databases: the CLI takes its URL prefixes from {@code
 * Dialects}, and the benchmark and chaos modules run on the databases they name for their own
 * measurements, not the library's suites.
 */
package dev.archlab.inbox.jdbc.dialect;
