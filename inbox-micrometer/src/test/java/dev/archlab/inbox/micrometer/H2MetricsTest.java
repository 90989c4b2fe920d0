package dev.archlab.inbox.micrometer;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** {@link AbstractJdbcMetricsTest} on an in-memory H2 database. */
class H2MetricsTest extends AbstractJdbcMetricsTest {

  @Override
  DataSource dataSource() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:inbox-metrics;DB_CLOSE_DELAY=-1");
    return ds;
  }
}
