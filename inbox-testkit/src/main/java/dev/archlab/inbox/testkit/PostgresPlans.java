package dev.archlab.inbox.testkit;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;

/**
 * PostgreSQL's generic plan of a statement, for tests that check which index a statement reaches
 * its rows through: the plan a prepared statement keeps once PostgreSQL stops planning it per call,
 * made with no parameter values to go by. Stateless.
 */
public final class PostgresPlans {

  private PostgresPlans() {}

  /**
   * The {@code EXPLAIN} output of {@code sql} prepared with numbered parameters and run with NULLs,
   * on {@code st}'s session with {@code plan_cache_mode = force_generic_plan}; the session's
   * prepared statements are deallocated first.
   *
   * @param st a statement on a PostgreSQL session the caller owns
   * @param sql the statement, with {@code ?} parameters
   * @return the plan, one line per plan node line
   * @throws SQLException if PostgreSQL refuses the statement
   */
  public static String generic(Statement st, String sql) throws SQLException {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    st.execute("SET plan_cache_mode = force_generic_plan");
    st.execute("DEALLOCATE ALL");
    st.execute("PREPARE planned AS " + numbered);
    String args = n == 0 ? "" : "(" + String.join(", ", Collections.nCopies(n, "NULL")) + ")";
    StringBuilder plan = new StringBuilder();
    try (ResultSet rs = st.executeQuery("EXPLAIN EXECUTE planned" + args)) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }
}
