package dev.archlab.inbox.chaos;

import dev.archlab.inbox.cli.SimulationIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the database holds after a run, read by the driver itself rather than trusted from the
 * consumers' own summaries.
 *
 * @param effectRows rows in the business table for this run's ids
 * @param distinctIds distinct ids among them
 * @param done ids in state DONE
 * @param deadPoison DEAD ids that were planted poison
 * @param deadOther DEAD ids that were not poison (a message given up on)
 * @param processing ids still PROCESSING (stuck)
 * @param lost ids neither DONE nor DEAD
 * @param retried ids whose record is past attempt 1: each extra attempt is a claim that was taken
 *     over (or a failed run retried), counted by the database rather than by the processes
 */
record EndState(
    long effectRows,
    long distinctIds,
    long done,
    long deadPoison,
    long deadOther,
    long processing,
    long lost,
    long retried) {

  static final String EFFECTS = "inbox_sim_effect";

  /** Rows beyond the first for any id: each one is an effect that happened twice. */
  long doubleEffects() {
    return effectRows - distinctIds;
  }

  /**
   * Reads the end state of consumer {@code consumer} for the ids of one {@code inbox simulate} run
   * ({@code ids}, the naming the command itself uses), the first {@code ids.poison()} of which are
   * poison.
   */
  static EndState read(Database db, String consumer, SimulationIds ids) throws SQLException {
    String like = ids.likePattern();
    try (Connection c = db.connect()) {
      long rows = count(c, "SELECT COUNT(*) FROM " + EFFECTS + " WHERE message_id LIKE ?", like);
      long distinct =
          count(
              c,
              "SELECT COUNT(DISTINCT message_id) FROM " + EFFECTS + " WHERE message_id LIKE ?",
              like);
      long done = 0;
      long deadPoison = 0;
      long deadOther = 0;
      long processing = 0;
      long retried = 0;
      java.util.Set<String> seen = new java.util.HashSet<>();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT message_id, state, attempts FROM inbox WHERE consumer = ? AND message_id LIKE ?")) {
        ps.setString(1, consumer);
        ps.setString(2, like);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String id = rs.getString(1);
            String state = rs.getString(2);
            seen.add(id);
            if (rs.getInt(3) > 1) {
              retried++;
            }
            boolean isPoison = ids.isPoison(id);
            switch (state) {
              case "DONE":
                done++;
                break;
              case "DEAD":
                if (isPoison) {
                  deadPoison++;
                } else {
                  deadOther++;
                }
                break;
              default:
                processing++;
            }
          }
        }
      }
      long lost = 0;
      for (int i = 0; i < ids.messages(); i++) {
        if (!seen.contains(ids.id(i))) {
          lost++; // never even claimed
        }
      }
      lost += processing;
      return new EndState(rows, distinct, done, deadPoison, deadOther, processing, lost, retried);
    }
  }

  private static long count(Connection c, String sql, String like) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, like);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Creates the business table before the consumers start, with the DDL {@code inbox simulate} uses
   * (no unique constraint, so a double effect is a second row). Done once here because K processes
   * creating it at the same moment race on {@code CREATE TABLE IF NOT EXISTS}.
   */
  static void createEffectTable(Database db) throws SQLException {
    try (Connection c = db.connect();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + EFFECTS
              + " (message_id VARCHAR(255) NOT NULL, applied_at TIMESTAMP NOT NULL,"
              + " worker VARCHAR(64) NOT NULL)");
    }
  }

  /** Drops what a previous run left, so only this run counts. */
  static void reset(Database db) throws SQLException {
    try (Connection c = db.connect();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + EFFECTS);
      st.execute("DROP TABLE IF EXISTS inbox");
    }
  }
}
