package dev.archlab.inbox.jdbc.dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;

/**
 * How a one-commit claim bounds its wait for another transaction's row lock on one database: the
 * statements run in the transaction before the claim, a prefix put in front of the claim's {@code
 * INSERT}, and the statements run right after the claim (also when it failed) to put back any
 * session setting the first ones changed. Made by {@link JdbcDialect#claimLockTimeout}.
 *
 * @param before statements run before the claim, in order; may be empty
 * @param insertPrefix text put in front of the claim's {@code INSERT}; empty for none
 * @param after statements run after the claim, in order, to restore the session; may be empty
 */
public record LockTimeoutPlan(List<String> before, String insertPrefix, List<String> after) {

  public LockTimeoutPlan {
    before = List.copyOf(before);
    insertPrefix = Objects.requireNonNull(insertPrefix, "insertPrefix");
    after = List.copyOf(after);
  }

  /**
   * Runs {@link #before()} on {@code c}.
   *
   * @param c the claim's connection, in its transaction
   * @throws SQLException if a statement fails
   */
  public void runBefore(Connection c) throws SQLException {
    execute(c, before);
  }

  /**
   * Runs {@link #after()} on {@code c}.
   *
   * @param c the claim's connection, in its transaction
   * @throws SQLException if a statement fails
   */
  public void runAfter(Connection c) throws SQLException {
    execute(c, after);
  }

  /**
   * Puts the session's lock timeout back after a failed claim. If even that fails, the connection
   * must not be trusted with an IN_FLIGHT answer: the restore's error is thrown, carrying {@code
   * cause}, so the delivery fails and the pool sees the broken connection.
   *
   * @param c the claim's connection
   * @param cause why the claim failed
   * @throws SQLException if restoring fails
   */
  public void restoreAfterFailure(Connection c, Exception cause) throws SQLException {
    try {
      runAfter(c);
    } catch (SQLException restore) {
      restore.addSuppressed(cause);
      throw restore;
    }
  }

  private static void execute(Connection c, List<String> statements) throws SQLException {
    if (statements.isEmpty()) {
      return;
    }
    try (Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }
}
