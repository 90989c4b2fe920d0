package dev.archlab.inbox.jdbc.dialect;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Opens connections on one SQLite file with the store's settings (WAL, {@code BEGIN IMMEDIATE},
 * {@code synchronous=FULL}, a busy timeout) and says why one cannot be opened. Built by {@link
 * SqliteDialect#dataSource(Path, Duration)}.
 */
final class SqliteFileDataSource implements DataSource {

  private static final int SQLITE_NOTADB = 26;

  private final Path file;
  private final org.sqlite.SQLiteDataSource driver;

  SqliteFileDataSource(Path file, Duration busyTimeout) {
    this.file = file;
    org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
    config.setJournalMode(org.sqlite.SQLiteConfig.JournalMode.WAL);
    config.setTransactionMode(org.sqlite.SQLiteConfig.TransactionMode.IMMEDIATE);
    config.setSynchronous(org.sqlite.SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout((int) busyTimeout.toMillis());
    this.driver = new org.sqlite.SQLiteDataSource(config);
    this.driver.setUrl("jdbc:sqlite:" + file);
  }

  @Override
  public Connection getConnection() throws SQLException {
    try {
      return driver.getConnection();
    } catch (SQLException e) {
      String why = diagnose(e);
      if (why == null) {
        throw e;
      }
      throw new OpenFailure(why, e);
    }
  }

  /** What is wrong with the path, by looking at it, or null if nothing is seen. */
  private String diagnose(SQLException e) {
    Path dir = file.getParent();
    String db = "SQLite database '" + file + "'";
    if (e.getErrorCode() == SQLITE_NOTADB) {
      return db
          + ": the file is not an SQLite database (another program's file, or another"
          + " database's, such as H2's); choose another file or move this one away";
    }
    if (dir != null && !Files.isDirectory(dir)) {
      return db + ": the directory '" + dir + "' does not exist; create it first";
    }
    if (Files.isDirectory(file)) {
      return db + ": the path is a directory, not a file";
    }
    if (dir != null && !Files.isWritable(dir)) {
      return db
          + ": the directory '"
          + dir
          + "' is read-only for this process, and SQLite must create the database's -wal and"
          + " -shm files in it; make it writable or choose another directory";
    }
    if (Files.exists(file) && !Files.isWritable(file)) {
      return db + ": the file is read-only for this process; make it writable";
    }
    return null;
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return getConnection();
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return driver.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    driver.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    driver.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return driver.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("no parent logger");
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new SQLException("not a wrapper for " + type.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return type.isInstance(this);
  }

  @Override
  public String toString() {
    return "SQLite " + file;
  }

  /** A connection that could not be opened, with what {@link SqliteFileDataSource} saw on disk. */
  static final class OpenFailure extends SQLException {
    private static final long serialVersionUID = 1L;
    final String diagnosis;

    OpenFailure(String diagnosis, SQLException driver) {
      // Same vendor code, so the store classifies it as it would the driver's own error.
      super(
          diagnosis + " (" + driver.getMessage() + ")",
          driver.getSQLState(),
          driver.getErrorCode(),
          driver);
      this.diagnosis = diagnosis;
    }
  }
}
