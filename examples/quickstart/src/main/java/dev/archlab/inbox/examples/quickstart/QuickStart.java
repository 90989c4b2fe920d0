package dev.archlab.inbox.examples.quickstart;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.InboxStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The README's quick start as a user compiles it: the block between the two marker comments is
 * the README's snippet, character for character (a test compares them). Around it stand the few
 * things the snippet takes as given: an SMS gateway, an alerting hook and the broker's answers.
 */
public final class QuickStart {

  /** The SMS gateway the handler calls; the idempotency key lets the provider drop repeats. */
  public interface Sms {
    /**
     * Sends one text.
     *
     * @param text the message payload
     * @param idempotencyKey a key stable across redeliveries of the same message
     * @throws Exception if the gateway refused the text
     */
    void send(byte[] text, String idempotencyKey) throws Exception;
  }

  /** Where parked (poison) messages are reported. */
  public interface Alerts {
    /**
     * Reports a message that was parked as DEAD.
     *
     * @param message the parked message
     * @param lastError the last failure recorded for it
     */
    void poison(Message message, String lastError);
  }

  /** The broker side: what the consumer tells the broker to do with the delivery. */
  public interface Broker {
    /** Acknowledges the delivery. */
    void ack();

    /**
     * Asks for the delivery again later.
     *
     * @param delay how long to wait before the redelivery
     */
    void redeliverAfter(Duration delay);
  }

  private final Sms sms;
  private final Alerts alerts;
  private final Broker broker;

  /**
   * A quick start wired to the given collaborators.
   *
   * @param sms the SMS gateway
   * @param alerts the alerting hook
   * @param broker the broker answers
   */
  public QuickStart(Sms sms, Alerts alerts, Broker broker) {
    this.sms = sms;
    this.alerts = alerts;
    this.broker = broker;
  }

  /**
   * Runs the README's quick start for one delivery.
   *
   * @param eventId the producer-made message id
   * @param body the payload
   * @param headers the message headers
   * @return what consuming the delivery came to
   */
  public Outcome deliver(String eventId, byte[] body, Map<String, String> headers) {
    // tag::quickstart[]
    InboxStore store = new MemoryInboxStore();            // or JdbcInboxStore, below
    IdempotentConsumer notifier =
        IdempotentConsumer.builder("notifier", store)
            .handler((message, attempt) -> sms.send(message.payload(), attempt.idempotencyKey()))
            .config(InboxConfig.custom()
                .lease(Duration.ofSeconds(30))                        // > normal handler time
                .retryPolicy(RetryPolicy.custom().maxAttempts(5).build())
                .dedupWindow(Duration.ofDays(7), Duration.ofDays(1))  // retention > redelivery window
                .build())
            .deadLetterHandler((message, record) -> alerts.poison(message, record.lastError()))
            .build();

    Outcome outcome = notifier.consume(new Message(eventId, "order.placed", body, headers));
    if (outcome.shouldAcknowledge()) {
      ack();                                        // APPLIED, DUPLICATE or DEAD
    } else {
      redeliverAfter(outcome.retryAfter());         // IN_FLIGHT or FAILED
    }
    // end::quickstart[]
    return outcome;
  }

  private void ack() {
    broker.ack();
  }

  private void redeliverAfter(Duration delay) {
    broker.redeliverAfter(delay);
  }

  /**
   * Delivers one order event to a console SMS gateway and prints the outcome.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    QuickStart quickStart =
        new QuickStart(
            (text, key) ->
                System.out.println(
                    "sms " + new String(text, StandardCharsets.UTF_8) + " (key " + key + ")"),
            (message, lastError) -> System.out.println("poison " + message.id() + ": " + lastError),
            new Broker() {
              @Override
              public void ack() {
                System.out.println("ack");
              }

              @Override
              public void redeliverAfter(Duration delay) {
                System.out.println("redeliver after " + delay);
              }
            });
    Outcome outcome =
        quickStart.deliver(
            "order-42",
            "Your order 42 is confirmed".getBytes(StandardCharsets.UTF_8),
            Map.of("source", "quickstart"));
    System.out.println(outcome.status());
  }
}
