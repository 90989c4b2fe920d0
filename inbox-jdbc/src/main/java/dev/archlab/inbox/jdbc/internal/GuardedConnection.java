package dev.archlab.inbox.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;

/**
 * The view of the inbox's transaction that handler code gets. Everything passes through to the
 * pooled connection except what would end the transaction the inbox must end itself: {@code
 * commit()}, {@code rollback()}, {@code setAutoCommit(…)}, {@code close()} and {@code abort(…)}
 * throw {@link IllegalStateException} naming the rule, without touching the connection. A commit
 * there would make the business writes durable before (or without) DONE; a close would leave the
 * record PROCESSING until its lease ran out.
 *
 * <p>A refusal also fails the attempt when the handler catches it and returns normally: the
 * consumer calls {@link #throwIfRefused()} after the handler. Savepoints ({@code setSavepoint},
 * {@code rollback(Savepoint)}, {@code releaseSavepoint}) stay allowed: they only undo part of the
 * work inside the transaction. {@code unwrap(Connection.class)} and any interface the guard itself
 * implements return the guard; unwrapping to a driver type hands out the driver's own object, which
 * is not guarded.
 */
public final class GuardedConnection implements InvocationHandler {

  private final Connection delegate;
  private final String rule;
  private final Connection proxy;
  private volatile IllegalStateException refused;

  private GuardedConnection(Connection delegate, String rule) {
    this.delegate = delegate;
    this.rule = rule;
    this.proxy =
        (Connection)
            Proxy.newProxyInstance(
                GuardedConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
  }

  /** A guard over a connection of the store's own, whose transaction the inbox ends. */
  public static GuardedConnection around(Connection connection) {
    return new GuardedConnection(
        connection,
        "the inbox ends this transaction, committing the handler's writes together with the"
            + " message's record when the handler returns and rolling them back when it throws");
  }

  /** A guard over the connection of a transaction the caller of {@code consume} opened. */
  public static GuardedConnection aroundCallers(Connection connection) {
    return new GuardedConnection(
        connection,
        "the caller of consume ends this transaction, after the message's record was completed"
            + " in it");
  }

  /** The connection to hand to handler code. */
  public Connection connection() {
    return proxy;
  }

  /**
   * Throws the first refusal, if the handler attempted something refused (even if it caught it).
   */
  public void throwIfRefused() {
    IllegalStateException first = refused;
    if (first != null) {
      throw first;
    }
  }

  @Override
  public Object invoke(Object self, Method method, Object[] args) throws Throwable {
    int arity = args == null ? 0 : args.length;
    switch (method.getName()) {
      case "commit", "close" -> {
        if (arity == 0) {
          throw refuse(method.getName() + "()");
        }
      }
      case "rollback" -> {
        if (arity == 0) {
          throw refuse("rollback()");
        }
      }
      case "setAutoCommit" -> throw refuse("setAutoCommit(" + args[0] + ")");
      case "abort" -> throw refuse("abort(…)");
      case "unwrap" -> {
        if (arity == 1 && ((Class<?>) args[0]).isInstance(proxy)) {
          return proxy;
        }
      }
      case "isWrapperFor" -> {
        if (arity == 1 && ((Class<?>) args[0]).isInstance(proxy)) {
          return true;
        }
      }
      case "equals" -> {
        if (arity == 1) {
          return self == args[0];
        }
      }
      case "hashCode" -> {
        if (arity == 0) {
          return System.identityHashCode(self);
        }
      }
      case "toString" -> {
        if (arity == 0) {
          return "guarded handler connection over " + delegate;
        }
      }
      default -> {
        // passes through below
      }
    }
    try {
      return method.invoke(delegate, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private IllegalStateException refuse(String call) {
    IllegalStateException e =
        new IllegalStateException(
            "a handler must not call "
                + call
                + " on the connection it was given: "
                + rule
                + " (savepoints are allowed)");
    if (refused == null) {
      refused = e;
    }
    return e;
  }
}
