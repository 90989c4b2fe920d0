package dev.archlab.inbox.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.InvalidMessageIdException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.broker.BrokerDecision.Action;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared header decoding and the dead-letter decisions for deliveries without a valid id. */
class MessageIdSourceTest {

  /** A delivery that is only its headers, as a broker client might hold them. */
  private static final MessageIdSource<Map<String, Object>> ID_HEADER =
      MessageIdSource.header("id", (headers, name) -> headers.get(name));

  private static MessageIdSource.Identified identify(Map<String, Object> headers) {
    return ID_HEADER.identify(headers, id -> Message.of(id, "orders", new byte[0]));
  }

  @Test
  void aHeaderIsReadAsStrictUtf8BytesOrAsAString() {
    assertThat(ID_HEADER.idOf(Map.of("id", "é-1".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("é-1");
    assertThat(ID_HEADER.idOf(Map.of("id", "m-2"))).isEqualTo("m-2");
    assertThat(ID_HEADER.idOf(Map.of())).isNull();
    assertThatThrownBy(() -> ID_HEADER.idOf(Map.of("id", new byte[] {(byte) 0xC3})))
        .isInstanceOf(InvalidMessageIdException.class);
    assertThatThrownBy(() -> ID_HEADER.idOf(Map.of("id", 42)))
        .isInstanceOf(InvalidMessageIdException.class)
        .hasMessage("header 'id' holds a Integer, not a string");
  }

  @Test
  void aBlankHeaderNameIsRefused() {
    assertThatThrownBy(() -> MessageIdSource.header(" ", (d, n) -> null))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessage("header name must not be blank, was ' '");
  }

  @Test
  void aDeliveryWithAValidIdBecomesItsMessage() {
    MessageIdSource.Identified ok = identify(Map.of("id", "m-3"));
    assertThat(ok.message().id()).isEqualTo("m-3");
    assertThat(ok.rejected()).isNull();
  }

  @Test
  void aDeliveryWithoutAValidIdIsDeadLetteredWithItsReason() {
    MessageIdSource.Identified none = identify(Map.of());
    assertThat(none.message()).isNull();
    assertThat(none.rejected()).isEqualTo(BrokerDecision.deadLetter("no message id"));

    MessageIdSource.Identified undecodable = identify(Map.of("id", new byte[] {(byte) 0xC3}));
    assertThat(undecodable.rejected().action()).isEqualTo(Action.DEAD_LETTER);
    assertThat(undecodable.rejected().reason()).startsWith("invalid message id: ");

    // Decodes, but Message refuses it: the same decision, not an exception.
    MessageIdSource.Identified refused = identify(Map.of("id", ""));
    assertThat(refused.message()).isNull();
    assertThat(refused.rejected().reason()).startsWith("invalid message id: ");
  }
}
