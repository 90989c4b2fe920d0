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
 * transaction for all of them) cannot run an interceptor around each and runs none (see that
 * method).
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
