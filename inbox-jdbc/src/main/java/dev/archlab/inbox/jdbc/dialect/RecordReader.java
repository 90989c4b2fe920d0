package dev.archlab.inbox.jdbc.dialect;

import dev.archlab.inbox.InboxRecord;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads the current row of a result set holding {@link JdbcDialect#COLUMNS} as a record. */
@FunctionalInterface
public interface RecordReader {
  InboxRecord read(ResultSet rs) throws SQLException;
}
