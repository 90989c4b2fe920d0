package dev.archlab.inbox.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The adapters' interceptor: one observation per delivery, current in its turn or handler calls.
 */
class ObservingInterceptorTest {

  private final List<String> events = new ArrayList<>();

  /** An observation that records when its scope opens and closes. */
  private DeliveryObserver.Observed observation(String name) {
    events.add("observe " + name);
    return new DeliveryObserver.Observed() {
      @Override
      public DeliveryObserver.Scope openScope() {
        events.add("open " + name);
        return () -> events.add("close " + name);
      }

      @Override
      public void outcome(Outcome outcome) {}

      @Override
      public void failed(Throwable error) {}

      @Override
      public void rejected(String reason) {}

      @Override
      public DeliveryObserver.Publish publishing(
          DeliveryObserver.Purpose purpose, String destination) {
        return DeliveryObserver.Publish.NONE;
      }

      @Override
      public void end() {}
    };
  }

  private final List<Message> messages = List.of(Message.of("a"), Message.of("b"));
  private final DeliveryObserver.Observed[] slots = new DeliveryObserver.Observed[2];
  private final ConsumeInterceptor interceptor =
      DeliveryObserver.interceptorFor(messages, slots, k -> observation(messages.get(k).id()));

  @Test
  void eachTurnIsObservedAndRunsInsideItsScope() {
    Outcome outcome =
        interceptor.intercept(
            messages.get(1),
            () -> {
              events.add("turn b");
              return Outcome.applied("a", 1, null);
            });
    assertThat(outcome.status()).isEqualTo(Outcome.Status.APPLIED);
    assertThat(events).containsExactly("observe b", "open b", "turn b", "close b");
    assertThat(slots[0]).isNull();
    assertThat(slots[1]).isNotNull();
  }

  @Test
  void aBatchsHandlerCallsShareTheirMessagesObservationEachInItsOwnScope() {
    try (ConsumeInterceptor.HandlerScope s = interceptor.handlerScope(messages.get(0))) {
      events.add("handler a");
    }
    try (ConsumeInterceptor.HandlerScope s = interceptor.handlerScope(messages.get(0))) {
      events.add("handler a again");
    }
    assertThat(events)
        .containsExactly(
            "observe a", "open a", "handler a", "close a", "open a", "handler a again", "close a");
  }

  @Test
  void aMessageTheModeCopiedRunsUnobserved() {
    Message copy = Message.of("a");
    Outcome outcome = interceptor.intercept(copy, () -> Outcome.applied("a", 1, null));
    assertThat(outcome.status()).isEqualTo(Outcome.Status.APPLIED);
    assertThat(interceptor.handlerScope(copy)).isSameAs(ConsumeInterceptor.HandlerScope.NONE);
    assertThat(events).isEmpty();
  }

  @Test
  void oneSlotPerMessageIsRequired() {
    assertThatThrownBy(
            () ->
                DeliveryObserver.interceptorFor(
                    messages, new DeliveryObserver.Observed[1], k -> observation("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 observation slots for 2 messages");
  }
}
