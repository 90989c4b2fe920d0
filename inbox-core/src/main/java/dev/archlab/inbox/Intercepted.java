package dev.archlab.inbox;

import java.util.function.Supplier;

/**
 * Runs one delivery's consume through a {@link ConsumeInterceptor} and holds the interceptor to its
 * contract: the outcome is what the consume returned (never what the interceptor made up), a second
 * {@code proceed()} is refused, an interceptor that never proceeds fails the delivery, and one that
 * throws after the consume returned is logged and does not change the outcome. Runs a batch mode's
 * handler call inside the interceptor's handler scope the same way: a scope that fails to open or
 * close is logged, and the handler runs and answers as it would without it.
 */
final class Intercepted {

  private static final System.Logger LOG = System.getLogger(Intercepted.class.getName());

  private Intercepted() {}

  static Outcome consume(
      ConsumeInterceptor interceptor, Message message, Supplier<Outcome> consume) {
    if (interceptor == ConsumeInterceptor.NONE) {
      return consume.get();
    }
    Outcome[] result = new Outcome[1];
    boolean[] proceeded = new boolean[1];
    RuntimeException[] thrown = new RuntimeException[1];
    ConsumeInterceptor.Delivery delivery =
        () -> {
          if (proceeded[0]) {
            throw new IllegalStateException(
                "proceed() called twice for message '" + message.id() + "'");
          }
          proceeded[0] = true;
          try {
            result[0] = consume.get();
          } catch (RuntimeException e) {
            thrown[0] = e;
            throw e;
          }
          return result[0];
        };
    try {
      interceptor.intercept(message, delivery);
    } catch (RuntimeException e) {
      if (!proceeded[0]) {
        throw e; // nothing was consumed: the broker redelivers
      }
      if (thrown[0] == null) {
        // The delivery was consumed: a broken interceptor must not turn that into a redelivery.
        LOG.log(
            System.Logger.Level.WARNING,
            "interceptor failed after message '" + message.id() + "' was consumed; ignored",
            e);
        return result[0];
      }
    }
    if (thrown[0] != null) {
      // The consume failed; an interceptor that swallowed it must not turn it into an outcome.
      throw thrown[0];
    }
    if (!proceeded[0]) {
      throw new InboxException(
          "interceptor "
              + interceptor.getClass().getName()
              + " did not call proceed() for message '"
              + message.id()
              + "'; nothing was consumed");
    }
    return result[0];
  }

  static <E extends Exception> void inHandlerScope(
      ConsumeInterceptor interceptor, Message message, ConsumeInterceptor.HandlerCall<E> handler)
      throws E {
    if (interceptor == ConsumeInterceptor.NONE) {
      handler.run();
      return;
    }
    ConsumeInterceptor.HandlerScope scope = ConsumeInterceptor.HandlerScope.NONE;
    try {
      ConsumeInterceptor.HandlerScope opened = interceptor.handlerScope(message);
      scope = opened == null ? ConsumeInterceptor.HandlerScope.NONE : opened;
    } catch (RuntimeException e) {
      // A broken interceptor costs the trace, never the message: run the handler without it.
      LOG.log(
          System.Logger.Level.WARNING,
          "interceptor failed to open the handler scope of message '"
              + message.id()
              + "'; the handler runs without it",
          e);
    }
    try {
      handler.run();
    } finally {
      try {
        scope.close();
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "interceptor failed to close the handler scope of message '" + message.id() + "'",
            e);
      }
    }
  }
}
