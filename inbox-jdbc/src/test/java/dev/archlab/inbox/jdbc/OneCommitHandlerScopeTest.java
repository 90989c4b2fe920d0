package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A one-commit batch (Kafka's default mode, RabbitMQ's with a prefetch) runs each handler call
 * inside the interceptor's handler scope of that call's message, so a tracing adapter makes the
 * message's span current while its handler runs: on H2, with a handler that throws for one message.
 */
class OneCommitHandlerScopeTest {

  private static final AtomicInteger TABLES = new AtomicInteger();

  /** What the handler saw: the message it ran for and the message whose scope was open. */
  private record Call(String message, String currentScope) {}

  private final List<Call> calls = new ArrayList<>();
  private final Recording interceptor = new Recording();

  private OneCommitConsumer consumer(String failing) throws SQLException {
    JdbcInboxStore store = H2Database.get().freshStore("inbox_scope_" + TABLES.incrementAndGet());
    return OneCommitConsumer.builder("orders", store)
        .config(
            InboxConfig.custom()
                .retryPolicy(
                    RetryPolicy.custom().maxAttempts(3).initialDelay(Duration.ofMinutes(1)).build())
                .build())
        .handler(
            (message, attempt, connection) -> {
              calls.add(new Call(message.id(), interceptor.current));
              if (message.id().equals(failing)) {
                throw new IllegalStateException("poison " + failing);
              }
            })
        .build();
  }

  private static List<Message> messages(int n) {
    List<Message> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(Message.of("m-" + i));
    }
    return out;
  }

  @Test
  void anInOrderBatchRunsEachHandlerCallInItsMessagesScopeAFailingOneIncluded() throws Exception {
    ConsumeMode mode = consumer("m-3").asMode().inOrderBatchesOf(10);

    List<Outcome> outcomes = mode.consume(messages(5), interceptor);

    // As without an interceptor: m-3 fails alone and stops the partition there.
    assertThat(outcomes)
        .extracting(Outcome::messageId, Outcome::status)
        .containsExactly(
            tuple("m-1", Outcome.Status.APPLIED),
            tuple("m-2", Outcome.Status.APPLIED),
            tuple("m-3", Outcome.Status.FAILED));
    assertThat(outcomes.get(2).attempts()).isEqualTo(1);
    // The first transaction ran m-1, m-2 and m-3 (which threw), the second m-1 and m-2 again.
    assertThat(calls)
        .containsExactly(
            new Call("m-1", "m-1"),
            new Call("m-2", "m-2"),
            new Call("m-3", "m-3"),
            new Call("m-1", "m-1"),
            new Call("m-2", "m-2"));
    assertThat(interceptor.opened).isEqualTo(5);
    assertThat(interceptor.closed).isEqualTo(5); // the scope of m-3 too, whose handler threw
    assertThat(interceptor.current).isNull();
    assertThat(interceptor.violations).isEmpty();
    assertThat(interceptor.intercepted).isEmpty(); // no delivery had a turn of its own
  }

  @Test
  void anUnorderedBatchRunsEachHandlerCallInItsMessagesScope() throws Exception {
    ConsumeMode mode = consumer("m-2").asMode().batchesOf(10);

    List<Outcome> outcomes = mode.consume(messages(3), interceptor);

    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Outcome.Status.APPLIED, Outcome.Status.FAILED, Outcome.Status.APPLIED);
    assertThat(calls)
        .containsExactly(
            new Call("m-1", "m-1"),
            new Call("m-2", "m-2"),
            new Call("m-1", "m-1"),
            new Call("m-3", "m-3"));
    assertThat(interceptor.opened).isEqualTo(4);
    assertThat(interceptor.closed).isEqualTo(4);
    assertThat(interceptor.current).isNull();
    assertThat(interceptor.violations).isEmpty();
  }

  @Test
  void aDeliveryAloneIsInterceptedAndOpensNoHandlerScope() throws Exception {
    ConsumeMode mode = consumer("none").asMode().inOrderBatchesOf(10);

    List<Outcome> outcomes = mode.consume(List.of(Message.of("m-1")), interceptor);

    assertThat(outcomes).extracting(Outcome::status).containsExactly(Outcome.Status.APPLIED);
    assertThat(interceptor.intercepted).containsExactly("m-1");
    assertThat(interceptor.opened).isZero();
    assertThat(calls).containsExactly(new Call("m-1", "intercepted m-1"));
  }

  @Test
  void anInterceptorWhoseScopesThrowChangesNoOutcome() throws Exception {
    ConsumeMode mode = consumer("none").asMode().inOrderBatchesOf(10);
    ConsumeInterceptor broken =
        new ConsumeInterceptor() {
          @Override
          public Outcome intercept(Message message, Delivery delivery) {
            return delivery.proceed();
          }

          @Override
          public HandlerScope handlerScope(Message message) {
            if (message.id().equals("m-1")) {
              throw new IllegalStateException("cannot open");
            }
            return () -> {
              throw new IllegalStateException("cannot close");
            };
          }
        };

    List<Outcome> outcomes = mode.consume(messages(3), broken);

    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Outcome.Status.APPLIED, Outcome.Status.APPLIED, Outcome.Status.APPLIED);
    assertThat(calls).extracting(Call::message).containsExactly("m-1", "m-2", "m-3");
  }

  /**
   * Records the scopes it opens and what was current; a scope opened while another is open, or
   * closed out of turn, is a violation.
   */
  private static final class Recording implements ConsumeInterceptor {
    String current;
    int opened;
    int closed;
    final List<String> intercepted = new ArrayList<>();
    final List<String> violations = new ArrayList<>();

    @Override
    public Outcome intercept(Message message, Delivery delivery) {
      intercepted.add(message.id());
      current = "intercepted " + message.id();
      try {
        return delivery.proceed();
      } finally {
        current = null;
      }
    }

    @Override
    public HandlerScope handlerScope(Message message) {
      if (current != null) {
        violations.add("opened " + message.id() + " inside " + current);
      }
      current = message.id();
      opened++;
      return () -> {
        if (!message.id().equals(current)) {
          violations.add("closed " + message.id() + " while " + current + " was current");
        }
        current = null;
        closed++;
      };
    }
  }
}
