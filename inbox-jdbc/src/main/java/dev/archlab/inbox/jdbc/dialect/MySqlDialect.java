package dev.archlab.inbox.jdbc.dialect;

import java.time.Duration;
import java.util.List;

/**
 * MySQL 8 and later. MySQL cannot return the rows an insert or update touched, so a claim and a
 * fenced update read the row back, and a batch is claimed one id at a time. Lock waits are bounded
 * by session variables, saved and put back around the statement.
 */
public class MySqlDialect extends AbstractMySqlDialect {

  /** "mysql"; also the folder of the shipped DDL, whose collation differs from MariaDB's. */
  @Override
  public String name() {
    return "mysql";
  }

  @Override
  public String productName() {
    return "MySQL";
  }

  @Override
  public List<String> urlPrefixes() {
    return List.of("jdbc:mysql:");
  }

  /** A MySQL product whose version string does not say MariaDB. */
  @Override
  protected boolean recognises(String product, String version) {
    return lower(product).contains("mysql") && !lower(version).contains("mariadb");
  }

  /**
   * MySQL 8 has no statement prefix for {@code innodb_lock_wait_timeout}, so the session value is
   * saved in a session variable, set, and put back right after the claim; whole seconds, rounded
   * up, at least one.
   */
  @Override
  public LockTimeoutPlan claimLockTimeout(Duration timeout) {
    return new LockTimeoutPlan(
        List.of(
            "SET @inbox_saved_lock_wait = @@SESSION.innodb_lock_wait_timeout,"
                + " SESSION innodb_lock_wait_timeout = "
                + ceilSeconds(timeout)),
        "",
        List.of("SET SESSION innodb_lock_wait_timeout = @inbox_saved_lock_wait"));
  }

  /**
   * DDL waits for metadata locks, bounded by {@code lock_wait_timeout}: the session value is saved,
   * set (rounded up, at least 1 s, MySQL's minimum) and put back.
   */
  @Override
  public LockTimeoutPlan ddlLockTimeout(Duration timeout) {
    return new LockTimeoutPlan(
        List.of(
            "SET @inbox_saved_ddl_wait = @@SESSION.lock_wait_timeout, SESSION lock_wait_timeout = "
                + ceilSeconds(timeout)),
        "",
        List.of("SET SESSION lock_wait_timeout = @inbox_saved_ddl_wait"));
  }
}
