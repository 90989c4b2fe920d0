package dev.archlab.inbox.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Supplies the connection of the transaction the caller has open (for example a framework's). */
@FunctionalInterface
public interface ConnectionSupplier {
  Connection get() throws SQLException;
}
