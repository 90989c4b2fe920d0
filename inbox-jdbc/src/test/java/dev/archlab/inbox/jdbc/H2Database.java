package dev.archlab.inbox.jdbc;

/** An in-memory H2 database in its default mode (no compatibility mode). */
public final class H2Database extends TestDatabase {

  private static final H2Database INSTANCE = new H2Database();

  public static H2Database get() {
    return INSTANCE;
  }

  @Override
  public String name() {
    return "h2";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:h2:mem:inbox-test;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=600000";
  }

  @Override
  String farTimeZoneSql() {
    return "SET TIME ZONE '+14:00'";
  }

  @Override
  String lockTimeoutSql(long millis) {
    return "SET LOCK_TIMEOUT " + millis;
  }

  @Override
  String unreachableUrl() {
    return "jdbc:h2:tcp://127.0.0.1:1/nowhere";
  }

  @Override
  String[] refusedLogin() {
    return new String[] {jdbcUrl(), "intruder", "wrong"};
  }

  @Override
  String sessionIdSql() {
    return "SELECT SESSION_ID()";
  }

  @Override
  String killSessionSql(long id) {
    return "SELECT ABORT_SESSION(" + id + ")";
  }

  @Override
  String sessionLockTimeoutSql() {
    return "SELECT LOCK_TIMEOUT()";
  }

  @Override
  String minusMicros(String col) {
    return "DATEADD(MICROSECOND, -CAST(? AS BIGINT), " + col + ")";
  }
}
