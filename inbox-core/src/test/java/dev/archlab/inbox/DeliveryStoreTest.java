package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.ClaimedEffect;
import dev.archlab.inbox.store.ClaimedRun;
import dev.archlab.inbox.store.ForwardingInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClaimedEffect#deliveryStore}: the store an effect binds to one delivery receives the
 * claim, the failure and the handler's lease extensions, and no heartbeat runs on it.
 */
class DeliveryStoreTest {

  private final MemoryInboxStore store = new MemoryInboxStore(new SettableClock());
  private final List<String> deliveryCalls = new CopyOnWriteArrayList<>();
  private final AtomicInteger heartbeatsScheduled = new AtomicInteger();
  private final ScheduledThreadPoolExecutor heartbeat =
      new ScheduledThreadPoolExecutor(1) {
        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(
            Runnable command, long initialDelay, long period, TimeUnit unit) {
          heartbeatsScheduled.incrementAndGet();
          return super.scheduleAtFixedRate(command, initialDelay, period, unit);
        }
      };

  @AfterEach
  void stopHeartbeat() {
    heartbeat.shutdownNow();
  }

  /** A view of the store that records which of its calls the consumer made. */
  private final InboxStore deliveryView =
      new ForwardingInboxStore(store) {
        @Override
        public BeginResult begin(BeginRequest request) {
          deliveryCalls.add("begin");
          return super.begin(request);
        }

        @Override
        public InboxRecord fail(Claim claim, String error, Duration retryDelay) {
          deliveryCalls.add("fail");
          return super.fail(claim, error, retryDelay);
        }

        @Override
        public Claim extend(Claim claim, Duration lease) {
          deliveryCalls.add("extend");
          return super.extend(claim, lease);
        }
      };

  /** An effect that extends its lease, then fails or completes through the delivery view. */
  private ClaimedEffect effect(boolean bindsDelivery, boolean fails) {
    return new ClaimedEffect() {
      @Override
      public InboxRecord runAndComplete(ClaimedRun run) {
        run.attempt().extendLease(Duration.ofMinutes(1));
        if (fails) {
          throw new IllegalStateException("handler failed");
        }
        return deliveryView.complete(run.handlerReturned(), run.keptResult());
      }

      @Override
      public InboxStore deliveryStore(InboxStore consumerStore) {
        return bindsDelivery ? deliveryView : consumerStore;
      }
    };
  }

  private IdempotentConsumer consumer(ClaimedEffect effect) {
    return IdempotentConsumer.builder("bound", store)
        .effect(effect)
        .config(
            InboxConfig.custom()
                .lease(Duration.ofSeconds(30))
                .heartbeatInterval(Duration.ofSeconds(10))
                .build())
        .heartbeatScheduler(heartbeat)
        .build();
  }

  @Test
  void boundDeliveryClaimsExtendsAndFailsThroughTheViewWithoutHeartbeat() {
    Outcome outcome = consumer(effect(true, true)).consume(Message.of("m-1"));
    assertThat(outcome.status()).isEqualTo(Status.FAILED);
    assertThat(deliveryCalls).containsExactly("begin", "extend", "fail");
    assertThat(heartbeatsScheduled).hasValue(0);
    assertThat(store.find("bound", "m-1").orElseThrow().attempts()).isEqualTo(1);
  }

  @Test
  void unboundDeliveryUsesTheConsumersStoreAndItsHeartbeat() {
    Outcome outcome = consumer(effect(false, false)).consume(Message.of("m-2"));
    assertThat(outcome.status()).isEqualTo(Status.APPLIED);
    // Claim and extension went to the consumer's store, which the view does not record.
    assertThat(deliveryCalls).isEmpty();
    assertThat(heartbeatsScheduled).hasValue(1);
  }
}
