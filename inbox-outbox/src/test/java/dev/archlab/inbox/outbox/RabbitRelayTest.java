package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.archlab.inbox.outbox.OutboxAdmin.Counts;
import dev.archlab.inbox.outbox.OutboxAdmin.Entry;
import dev.archlab.inbox.outbox.OutboxAdmin.State;
import dev.archlab.inbox.outbox.rabbitmq.RabbitOutboxPublisher;
import dev.archlab.inbox.rabbitmq.RabbitBroker;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** One relay on a real database and a real RabbitMQ server, with publisher confirms. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.archlab.inbox.outbox.OutboxDatabase#servers")
class RabbitRelayTest {

  static final String TABLE = "rabbit_outbox";

  @Parameter OutboxDatabase db;

  Outbox outbox;

  @BeforeEach
  void freshTable() throws SQLException {
    db.drop(TABLE);
    outbox = Outbox.builder(db.dataSource()).table(TABLE).build();
    outbox.createSchemaIfMissing();
  }

  private static String declareQueue() throws Exception {
    String queue = "outbox-" + UUID.randomUUID();
    try (Connection c = RabbitBroker.get().factory().newConnection("test");
        Channel ch = c.createChannel()) {
      ch.queueDeclare(queue, true, false, false, null);
    }
    return queue;
  }

  private static List<GetResponse> drain(String queue) throws Exception {
    List<GetResponse> out = new ArrayList<>();
    try (Connection c = RabbitBroker.get().factory().newConnection("test");
        Channel ch = c.createChannel()) {
      for (GetResponse r = ch.basicGet(queue, true); r != null; r = ch.basicGet(queue, true)) {
        out.add(r);
      }
    }
    return out;
  }

  @Test
  @DisplayName(
      "publishes each row persistent, with its id and key, in key order; SENT once confirmed")
  void publishesAndMarksSentAfterTheConfirm() throws Exception {
    String queue = declareQueue();
    RelayTestSupport.send(
        db,
        outbox,
        new OutboxMessage("m-1", queue, "k1", bytes("k1-0"), Map.of("type", "created")),
        new OutboxMessage("m-2", queue, "k2", bytes("k2-0"), null),
        new OutboxMessage("m-3", queue, "k1", bytes("k1-1"), null));
    try (OutboxRelay relay =
        OutboxRelay.builder(
                outbox, RabbitOutboxPublisher.builder(RabbitBroker.get().factory()).build())
            .build()) {
      assertThat(relay.relayOnce()).isEqualTo(3);
      assertThat(relay.relayOnce()).isZero();
    }
    List<GetResponse> got = drain(queue);
    List<String> ids = got.stream().map(r -> r.getProps().getMessageId()).toList();
    assertThat(ids).containsExactlyInAnyOrder("m-1", "m-2", "m-3");
    // Only a key's order is promised: k1's rows in the order they were written.
    assertThat(ids.indexOf("m-1")).isLessThan(ids.indexOf("m-3"));
    GetResponse first = got.get(ids.indexOf("m-1"));
    assertThat(first.getBody()).isEqualTo(bytes("k1-0"));
    assertThat(first.getProps().getDeliveryMode()).isEqualTo(2);
    assertThat(String.valueOf(first.getProps().getHeaders().get("type"))).isEqualTo("created");
    assertThat(String.valueOf(first.getProps().getHeaders().get(RabbitOutboxPublisher.KEY_HEADER)))
        .isEqualTo("k1");
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 3, 0));
  }

  @Test
  @DisplayName("unroutable, a missing exchange and a too-large payload are DEAD with the reason")
  void parksWhatCannotBePublished() throws Exception {
    String queue = declareQueue();
    RelayTestSupport.send(
        db,
        outbox,
        new OutboxMessage("no-queue", "nobody-listens-" + UUID.randomUUID(), "a", bytes("x"), null),
        new OutboxMessage(
            "no-exchange", "exchange:missing-" + UUID.randomUUID(), "b", bytes("x"), null),
        new OutboxMessage("too-large", queue, "c", bytes("0123456789"), null),
        new OutboxMessage("fine", queue, "d", bytes("x"), null));
    RabbitOutboxPublisher publisher =
        RabbitOutboxPublisher.builder(RabbitBroker.get().factory())
            .maxMessageBytes(5)
            .routes(
                d ->
                    d.startsWith("exchange:")
                        ? new RabbitOutboxPublisher.Route(d.substring(9), "any")
                        : new RabbitOutboxPublisher.Route("", d))
            .build();
    try (OutboxRelay relay = OutboxRelay.builder(outbox, publisher).build()) {
      assertThat(relay.relayOnce()).isEqualTo(4);
    }
    assertThat(drain(queue)).extracting(r -> r.getProps().getMessageId()).containsExactly("fine");
    assertThat(outbox.admin().counts()).isEqualTo(new Counts(0, 1, 3));
    Map<String, String> why = new java.util.HashMap<>();
    for (Entry e : outbox.admin().list(State.DEAD, 10)) {
      why.put(e.row().id(), e.lastError());
    }
    assertThat(why.get("no-queue")).contains("unroutable");
    assertThat(why.get("no-exchange")).contains("does not exist");
    assertThat(why.get("too-large")).contains("over the limit of 5");
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
