package dev.archlab.inbox.broker;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The interceptor an adapter hands a mode for one call: each delivery's observation started as its
 * turn begins (or, in a one-commit batch, at its handler's first call) and current while its turn
 * or each handler call runs. Deliveries are matched by identity with the messages the adapter
 * passed, so a message a mode copied runs unobserved rather than under another's observation. Built
 * by {@link DeliveryObserver#interceptorFor}; used by the consuming thread only.
 */
final class ObservingInterceptor implements ConsumeInterceptor {

  private final Map<Message, Integer> index = new IdentityHashMap<>();
  private final DeliveryObserver.Observed[] observed;
  private final IntFunction<DeliveryObserver.Observed> observe;

  ObservingInterceptor(
      List<Message> messages,
      DeliveryObserver.Observed[] observed,
      IntFunction<DeliveryObserver.Observed> observe) {
    if (observed.length != messages.size()) {
      throw new IllegalArgumentException(
          observed.length + " observation slots for " + messages.size() + " messages");
    }
    for (int k = 0; k < messages.size(); k++) {
      index.put(messages.get(k), k);
    }
    this.observed = observed;
    this.observe = observe;
  }

  @Override
  public Outcome intercept(Message message, Delivery delivery) {
    Integer k = index.get(message);
    if (k == null) {
      return delivery.proceed(); // not one of ours: a mode that copied the message
    }
    observed[k] = observe.apply(k);
    try (DeliveryObserver.Scope scope = observed[k].openScope()) {
      return delivery.proceed();
    }
  }

  @Override
  public HandlerScope handlerScope(Message message) {
    Integer k = index.get(message);
    if (k == null) {
      return HandlerScope.NONE;
    }
    if (observed[k] == null) {
      // A one-commit batch: observed from its first handler call, current in each.
      observed[k] = observe.apply(k);
    }
    return observed[k].openScope()::close;
  }
}
