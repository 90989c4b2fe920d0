package dev.archlab.inbox;

/**
 * Runs around the consume of each single delivery: the claim, the handler and the recording of the
 * result all happen inside {@link Delivery#proceed()}, on the thread that calls {@code intercept}.
 * A tracing integration uses it to make a delivery's span current while its handler runs (the
 * handler then sees it, and so does whatever the handler calls), and to end the span with the
 * delivery's outcome. It needs nothing from the interceptor but to call {@code proceed()}.
 *
 * <p>What a consumer guarantees to an interceptor given to {@link
 * dev.archlab.inbox.broker.ConsumeMode#consume(java.util.List, ConsumeInterceptor)}: {@code
 * intercept} is called once for each delivery the consumer reaches, in delivery order, on the
 * consuming thread, with the very {@link Message} instance it was handed. What {@code proceed()}
 * returns is that delivery's outcome, whatever {@code intercept} returns; what it throws is what
 * the consume call throws. Deliveries that are not reached (after one that did not finish in an
 * in-order call) are never intercepted. A mode that runs several deliveries as one unit (one
 * transaction for all of them) has no turn per delivery to run {@code intercept} around; instead it
 * runs each call of a per-message handler inside {@link #handlerScope} of that call's message (the
 * one-commit batch of {@code inbox-jdbc}'s {@code OneCommitConsumer}), so a tracing interceptor can
 * still make that message's span current while its handler runs. A handler that takes the whole
 * batch at once (a batch handler) runs inside no message's scope: no single message is the parent
 * of what it does.
 *
 * <p>An interceptor must call {@code proceed()} exactly once and return or rethrow what it gave;
 * one that does not call it fails the delivery with {@link InboxException} (nothing was claimed, so
 * the broker redelivers it), and a second call throws {@link IllegalStateException} without
 * consuming again. An exception the interceptor throws before {@code proceed()} is what the consume
 * call throws (nothing was consumed); one it throws after {@code proceed()} returned is logged and
 * ignored, so a broken interceptor never changes an outcome.
 */
@FunctionalInterface
public interface ConsumeInterceptor {

  /** Proceeds at once: no interception. */
  ConsumeInterceptor NONE = (message, delivery) -> delivery.proceed();

  /**
   * Opens what must be current while a batch mode runs the handler for {@code message} alone inside
   * a transaction it shares with other messages (a tracing interceptor: that message's span). Such
   * a mode calls it on the consuming thread right before each call of the handler for {@code
   * message} (more than once when a rolled-back transaction is run again), with the very instance
   * it was handed, and closes the scope on the same thread right after that call returns or throws,
   * before the handler runs for any other message: scopes never overlap and never outlive the
   * handler call. It is not called for a delivery consumed alone, which {@link #intercept} runs
   * around instead, nor for messages whose handler does not run (duplicates, deliveries in flight
   * elsewhere). An exception thrown by this method or by the scope's {@code close()} is logged and
   * ignored (the handler then runs without the scope), so it never changes an outcome.
   *
   * @param message the message whose handler is about to run
   * @return the scope to close once that call of the handler has ended; the default is {@link
   *     HandlerScope#NONE}
   */
  default HandlerScope handlerScope(Message message) {
    return HandlerScope.NONE;
  }

  /**
   * Runs {@code handler} inside {@code interceptor}'s {@link #handlerScope} of {@code message},
   * holding the interceptor to the contract there: what a batch mode calls for each handler call of
   * one message.
   *
   * @param interceptor the interceptor; {@link #NONE} runs the handler directly
   * @param message the message whose handler runs
   * @param handler the handler's call for {@code message}
   * @param <E> what the handler may throw
   * @throws E what the handler threw, after the scope was closed
   */
  static <E extends Exception> void inHandlerScope(
      ConsumeInterceptor interceptor, Message message, HandlerCall<E> handler) throws E {
    Intercepted.inHandlerScope(interceptor, message, handler);
  }

  /**
   * Runs around one delivery's consume.
   *
   * @param message the delivery, the instance the consumer was handed
   * @param delivery the consume of {@code message}; call {@link Delivery#proceed()} once
   * @return the outcome {@code proceed()} returned
   */
  Outcome intercept(Message message, Delivery delivery);

  /**
   * Runs {@code consume} for {@code message} through {@code interceptor}, holding it to the
   * contract above: what a consumer (or a store module's mode) calls for each delivery it runs
   * alone.
   *
   * @param interceptor the interceptor; {@link #NONE} calls {@code consume} directly
   * @param message the delivery, handed to the interceptor as it is
   * @param consume the delivery's consume
   * @return what {@code consume} returned
   * @throws InboxException if the interceptor did not call {@code proceed()}
   * @throws RuntimeException what {@code consume} threw, or what the interceptor threw before it
   *     proceeded
   */
  static Outcome around(
      ConsumeInterceptor interceptor,
      Message message,
      java.util.function.Supplier<Outcome> consume) {
    return Intercepted.consume(interceptor, message, consume);
  }

  /** What {@link #handlerScope} opens; closed once, on the thread that opened it. */
  @FunctionalInterface
  interface HandlerScope extends AutoCloseable {

    /** A scope that holds nothing. */
    HandlerScope NONE = () -> {};

    /** Ends the scope: whatever was current before it was opened is current again. */
    @Override
    void close();
  }

  /**
   * One call of a handler for one message, run by {@link #inHandlerScope}.
   *
   * @param <E> what the call may throw
   */
  @FunctionalInterface
  interface HandlerCall<E extends Exception> {

    /**
     * Runs the handler.
     *
     * @throws E what the handler threw
     */
    void run() throws E;
  }

  /** The consume of one delivery, handed to {@link ConsumeInterceptor#intercept}. */
  @FunctionalInterface
  interface Delivery {

    /**
     * Consumes the delivery: claims it, runs the handler if the claim succeeded and records the
     * result.
     *
     * @return what the delivery came to
     * @throws IllegalStateException if called a second time
     * @throws RuntimeException whatever the consumer throws for this delivery ({@link
     *     LeaseLostException}, {@link StoreUnavailableException}, ...)
     */
    Outcome proceed();
  }
}
