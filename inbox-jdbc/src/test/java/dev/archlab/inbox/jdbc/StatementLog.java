package dev.archlab.inbox.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that records the text of every statement prepared or executed through it, so
 * a test can show which SQL a store sent (for example: no DDL at all).
 */
final class StatementLog {

  private final List<String> sql = new CopyOnWriteArrayList<>();
  private final DataSource dataSource;

  StatementLog(DataSource real) {
    this.dataSource = proxy(DataSource.class, real);
  }

  DataSource dataSource() {
    return dataSource;
  }

  /** Every statement text seen so far, in order. */
  List<String> statements() {
    return List.copyOf(sql);
  }

  /** The statements that change the schema (CREATE, ALTER, DROP). */
  List<String> ddl() {
    return sql.stream()
        .filter(
            s -> {
              String head = s.stripLeading().toUpperCase(Locale.ROOT);
              return head.startsWith("CREATE")
                  || head.startsWith("ALTER")
                  || head.startsWith("DROP")
                  || head.contains(" FOR CREATE")
                  || head.contains(" FOR ALTER");
            })
        .toList();
  }

  /** Wraps {@code target} so that connections and statements it hands out are wrapped too. */
  private <T> T proxy(Class<T> type, T target) {
    Object p =
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {type},
            (self, method, args) -> {
              String name = method.getName();
              if (args != null
                  && args.length > 0
                  && args[0] instanceof String text
                  && (name.startsWith("prepare")
                      || name.startsWith("execute")
                      || name.equals("addBatch"))) {
                sql.add(text);
              }
              Object result;
              try {
                result = method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              if (result instanceof Connection c && method.getReturnType() == Connection.class) {
                return proxy(Connection.class, c);
              }
              if (result instanceof java.sql.CallableStatement cs
                  && method.getReturnType() == java.sql.CallableStatement.class) {
                return proxy(java.sql.CallableStatement.class, cs);
              }
              if (result instanceof java.sql.PreparedStatement ps
                  && method.getReturnType() == java.sql.PreparedStatement.class) {
                return proxy(java.sql.PreparedStatement.class, ps);
              }
              if (result instanceof Statement st && method.getReturnType() == Statement.class) {
                return proxy(Statement.class, st);
              }
              return result;
            });
    return type.cast(p);
  }
}
