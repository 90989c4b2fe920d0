package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.broker.DeliveryObserver;
import dev.archlab.inbox.memory.MemoryInboxStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What a consumer guarantees to a {@link ConsumeInterceptor}: one call per delivery it reaches, in
 * order, with the handler inside {@code proceed()} on the same thread, and an outcome the
 * interceptor cannot change.
 */
class ConsumeInterceptorTest {

  private final MemoryInboxStore store = new MemoryInboxStore();
  private final ThreadLocal<String> current = new ThreadLocal<>();
  private final List<String> seenByHandler = new CopyOnWriteArrayList<>();

  private IdempotentConsumer consumer(int maxAttempts, String failing) {
    return IdempotentConsumer.builder("intercepted", store)
        .config(
            InboxConfig.custom()
                .retryPolicy(RetryPolicy.custom().maxAttempts(maxAttempts).build())
                .build())
        .handler(
            (message, attempt) -> {
              seenByHandler.add(message.id() + "@" + current.get());
              if (message.id().equals(failing)) {
                throw new IllegalStateException("fails");
              }
            })
        .build();
  }

  /** Marks its delivery current on the thread while it proceeds, and logs what it saw. */
  private ConsumeInterceptor marking(List<Message> intercepted, List<Outcome> proceeded) {
    return (message, delivery) -> {
      intercepted.add(message);
      current.set(message.id());
      try {
        Outcome outcome = delivery.proceed();
        proceeded.add(outcome);
        return outcome;
      } finally {
        current.remove();
      }
    };
  }

  @Test
  void anInOrderBatchRunsEachReachedDeliveryInsideItsOwnInterception() {
    ConsumeMode mode = consumer(3, "b").asMode().inOrderBatchesOf(3);
    List<Message> messages = List.of(Message.of("a"), Message.of("b"), Message.of("c"));
    List<Message> intercepted = new ArrayList<>();
    List<Outcome> proceeded = new ArrayList<>();

    List<Outcome> outcomes = mode.consume(messages, marking(intercepted, proceeded));

    // b fails with attempts left: c is not reached, so neither consumed nor intercepted.
    assertThat(outcomes).extracting(Outcome::status).containsExactly(Status.APPLIED, Status.FAILED);
    assertThat(intercepted).hasSize(2);
    assertThat(intercepted.get(0)).isSameAs(messages.get(0));
    assertThat(intercepted.get(1)).isSameAs(messages.get(1));
    assertThat(proceeded).isEqualTo(outcomes);
    assertThat(seenByHandler).containsExactly("a@a", "b@b");
  }

  @Test
  void aSingleDeliveryModeRunsItsDeliveryInsideTheInterception() {
    List<Message> intercepted = new ArrayList<>();
    List<Outcome> proceeded = new ArrayList<>();
    Message m = Message.of("one");

    List<Outcome> outcomes =
        consumer(3, null).asMode().consume(List.of(m), marking(intercepted, proceeded));

    assertThat(outcomes).extracting(Outcome::status).containsExactly(Status.APPLIED);
    assertThat(intercepted).containsExactly(m);
    assertThat(seenByHandler).containsExactly("one@one");
  }

  @Test
  void aModeOfFunctionsInterceptsACallOfOneAndRunsACallOfSeveralWithoutIt() {
    IdempotentConsumer consumer = consumer(3, null);
    ConsumeMode mode =
        ConsumeMode.single("intercepted", consumer::consume, consumer::consumeInOrder);
    List<Message> intercepted = new ArrayList<>();
    List<Outcome> proceeded = new ArrayList<>();

    mode.consume(List.of(Message.of("x")), marking(intercepted, proceeded));
    ConsumeMode grouped = mode.inOrderBatchesOf(2);
    grouped.consume(List.of(Message.of("y"), Message.of("z")), marking(intercepted, proceeded));

    assertThat(intercepted).extracting(Message::id).containsExactly("x");
    assertThat(seenByHandler).containsExactly("x@x", "y@null", "z@null");
  }

  @Test
  void anInterceptorThatDoesNotProceedFailsTheDeliveryAndNothingIsClaimed() {
    ConsumeMode mode = consumer(3, null).asMode();

    assertThatThrownBy(
            () -> mode.consume(List.of(Message.of("skipped")), (message, delivery) -> null))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("did not call proceed()")
        .hasMessageContaining("skipped");
    assertThat(store.find("intercepted", "skipped")).isEmpty();
    assertThat(seenByHandler).isEmpty();
  }

  @Test
  void aSecondProceedIsRefusedAndTheHandlerRunsOnce() {
    ConsumeMode mode = consumer(3, null).asMode();
    List<Throwable> second = new ArrayList<>();

    List<Outcome> outcomes =
        mode.consume(
            List.of(Message.of("twice")),
            (message, delivery) -> {
              Outcome outcome = delivery.proceed();
              try {
                delivery.proceed();
              } catch (IllegalStateException e) {
                second.add(e);
              }
              return outcome;
            });

    assertThat(outcomes).extracting(Outcome::status).containsExactly(Status.APPLIED);
    assertThat(second)
        .singleElement()
        .extracting(Throwable::getMessage)
        .asString()
        .contains("twice");
    assertThat(seenByHandler).containsExactly("twice@null");
  }

  @Test
  void anInterceptorCannotChangeTheOutcomeNorHideAFailure() {
    ConsumeMode mode = consumer(3, null).asMode();
    Outcome madeUp = Outcome.duplicate("made-up", 9, null);

    List<Outcome> outcomes =
        mode.consume(
            List.of(Message.of("real")),
            (message, delivery) -> {
              delivery.proceed();
              return madeUp;
            });
    assertThat(outcomes).extracting(Outcome::status).containsExactly(Status.APPLIED);

    // After the consume returned, an interceptor that throws is ignored: the delivery counts.
    List<Outcome> afterThrow =
        mode.consume(
            List.of(Message.of("then-throws")),
            (message, delivery) -> {
              delivery.proceed();
              throw new IllegalStateException("broken interceptor");
            });
    assertThat(afterThrow).extracting(Outcome::status).containsExactly(Status.APPLIED);

    // A consume that threw stays thrown, even if the interceptor swallowed it.
    IdempotentConsumer closed = consumer(3, null);
    closed.close();
    assertThatThrownBy(
            () ->
                closed
                    .asMode()
                    .consume(
                        List.of(Message.of("closed")),
                        (message, delivery) -> {
                          try {
                            return delivery.proceed();
                          } catch (RuntimeException e) {
                            return madeUp;
                          }
                        }))
        .isInstanceOf(ConsumerClosedException.class);
  }

  @Test
  void aHandlerScopeIsClosedWhenTheHandlerThrowsAndTheHandlerSeesIt() {
    List<String> log = new ArrayList<>();
    ConsumeInterceptor scoping =
        new ConsumeInterceptor() {
          @Override
          public Outcome intercept(Message message, Delivery delivery) {
            return delivery.proceed();
          }

          @Override
          public HandlerScope handlerScope(Message message) {
            current.set(message.id());
            log.add("open " + message.id());
            return () -> {
              current.remove();
              log.add("close " + message.id());
            };
          }
        };

    ConsumeInterceptor.inHandlerScope(
        scoping, Message.of("ok"), () -> log.add("handler saw " + current.get()));
    IllegalStateException thrown = new IllegalStateException("handler failed");
    assertThatThrownBy(
            () ->
                ConsumeInterceptor.inHandlerScope(
                    scoping,
                    Message.of("bad"),
                    () -> {
                      log.add("handler saw " + current.get());
                      throw thrown;
                    }))
        .isSameAs(thrown);

    assertThat(log)
        .containsExactly(
            "open ok", "handler saw ok", "close ok", "open bad", "handler saw bad", "close bad");
    assertThat(current.get()).isNull();
    // The default opens nothing.
    assertThat(ConsumeInterceptor.NONE.handlerScope(Message.of("x")))
        .isSameAs(ConsumeInterceptor.HandlerScope.NONE);
  }

  @Test
  void aHandlerScopeThatFailsToOpenOrCloseNeitherStopsNorFailsTheHandler() {
    List<String> ran = new ArrayList<>();
    ConsumeInterceptor cannotOpen =
        new ConsumeInterceptor() {
          @Override
          public Outcome intercept(Message message, Delivery delivery) {
            return delivery.proceed();
          }

          @Override
          public HandlerScope handlerScope(Message message) {
            throw new IllegalStateException("cannot open");
          }
        };
    ConsumeInterceptor cannotClose =
        new ConsumeInterceptor() {
          @Override
          public Outcome intercept(Message message, Delivery delivery) {
            return delivery.proceed();
          }

          @Override
          public HandlerScope handlerScope(Message message) {
            return () -> {
              throw new IllegalStateException("cannot close");
            };
          }
        };

    ConsumeInterceptor.inHandlerScope(cannotOpen, Message.of("a"), () -> ran.add("a"));
    ConsumeInterceptor.inHandlerScope(cannotClose, Message.of("b"), () -> ran.add("b"));

    assertThat(ran).containsExactly("a", "b");
  }

  @Test
  void aGuardedObserverNeverThrowsAtTheAdapter() {
    DeliveryObserver broken =
        delivery ->
            new DeliveryObserver.Observed() {
              @Override
              public DeliveryObserver.Scope openScope() {
                throw new IllegalStateException("scope");
              }

              @Override
              public void outcome(Outcome outcome) {
                throw new IllegalStateException("outcome");
              }

              @Override
              public void failed(Throwable error) {
                throw new IllegalStateException("failed");
              }

              @Override
              public void rejected(String reason) {
                throw new IllegalStateException("rejected");
              }

              @Override
              public DeliveryObserver.Publish publishing(
                  DeliveryObserver.Purpose purpose, String destination) {
                throw new IllegalStateException("publishing");
              }

              @Override
              public void end() {
                throw new IllegalStateException("end");
              }
            };
    DeliveryObserver guarded = DeliveryObserver.guarded(broken);
    DeliveryObserver.Observed observed =
        guarded.received(
            new DeliveryObserver.Received("kafka", "t", "c", "m", Map.of(), key -> null));

    try (DeliveryObserver.Scope scope = observed.openScope()) {
      assertThat(scope).isSameAs(DeliveryObserver.Scope.NONE);
    }
    observed.outcome(Outcome.applied("m", 1, null));
    observed.failed(new IllegalStateException());
    observed.rejected("no id");
    assertThat(observed.publishing(DeliveryObserver.Purpose.DEAD_LETTER, "t.DLT"))
        .isSameAs(DeliveryObserver.Publish.NONE);
    observed.end();
    assertThat(
            DeliveryObserver.guarded(
                    delivery -> {
                      throw new IllegalStateException();
                    })
                .received(
                    new DeliveryObserver.Received("kafka", "t", "c", null, null, key -> null)))
        .isSameAs(DeliveryObserver.Observed.NONE);
    assertThat(DeliveryObserver.guarded(DeliveryObserver.NONE)).isSameAs(DeliveryObserver.NONE);
  }
}
