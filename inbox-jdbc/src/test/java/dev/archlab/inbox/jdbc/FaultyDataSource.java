package dev.archlab.inbox.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A real pool with two planned interventions for the next connections borrowed: hold the first
 * borrower at a gate until the test releases it (so a flush stays running while followers queue),
 * and end the second one's database session from another connection just before its N-th statement,
 * so that statement and every later one fail the way a lost server connection does. Nothing is
 * simulated: the statements run on the real database and the failure is the driver's.
 */
final class FaultyDataSource implements DataSource {

  private final DataSource pool;
  private final TestDatabase database;
  private final Object planLock = new Object();
  private int borrowedSincePlan = -1;
  private int killAtStatement;
  private CountDownLatch arrived = new CountDownLatch(0);
  private CountDownLatch release = new CountDownLatch(0);
  private volatile boolean killed;

  FaultyDataSource(DataSource pool, TestDatabase database) {
    this.pool = pool;
    this.database = database;
  }

  /**
   * Plans the next two borrows: the first waits at the gate; the second's session is ended before
   * its {@code killAtStatement}-th statement (0: never).
   */
  void plan(int killAtStatement) {
    synchronized (planLock) {
      this.borrowedSincePlan = 0;
      this.killAtStatement = killAtStatement;
      this.arrived = new CountDownLatch(1);
      this.release = new CountDownLatch(1);
      this.killed = false;
    }
  }

  /** Waits until the first planned borrower is held at the gate. */
  void awaitGated() throws InterruptedException {
    CountDownLatch a;
    synchronized (planLock) {
      a = arrived;
    }
    if (!a.await(2, TimeUnit.MINUTES)) {
      throw new AssertionError("no flush borrowed a connection within 2 minutes");
    }
  }

  /** Lets the held borrower go on. */
  void release() {
    synchronized (planLock) {
      release.countDown();
    }
  }

  /** Whether the planned session kill happened. */
  boolean killed() {
    return killed;
  }

  @Override
  public Connection getConnection() throws SQLException {
    int n;
    int killAt;
    CountDownLatch a;
    CountDownLatch r;
    synchronized (planLock) {
      n = borrowedSincePlan < 0 ? 0 : ++borrowedSincePlan;
      killAt = killAtStatement;
      a = arrived;
      r = release;
    }
    if (n == 1) {
      a.countDown();
      try {
        if (!r.await(2, TimeUnit.MINUTES)) {
          throw new SQLException("the test never released the gated borrower");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted at the gate", e);
      }
    }
    Connection real = pool.getConnection();
    return n == 2 && killAt > 0 ? killingBefore(real, killAt) : real;
  }

  /** {@code real}, whose session is ended just before its {@code killAt}-th statement. */
  private Connection killingBefore(Connection real, int killAt) {
    int[] statements = {0};
    InvocationHandler handler =
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("prepareStatement")
              || name.equals("createStatement")
              || name.equals("prepareCall")) {
            if (++statements[0] == killAt) {
              database.killSessionOf(real);
              killed = true;
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("only the pool's own login");
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return pool.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    pool.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    pool.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return pool.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return pool.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return pool.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return pool.isWrapperFor(iface);
  }
}
