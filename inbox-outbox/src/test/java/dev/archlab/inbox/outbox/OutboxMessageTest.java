package dev.archlab.inbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidMessageIdException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OutboxMessageTest {

  @Test
  @DisplayName("bad parts are refused with the part named")
  void refusesBadParts() {
    assertThatThrownBy(() -> new OutboxMessage("", "t", null, null, null))
        .isInstanceOf(InvalidMessageIdException.class);
    assertThatThrownBy(() -> new OutboxMessage("id", " ", null, null, null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("destination");
    assertThatThrownBy(() -> new OutboxMessage("id", "t", "k".repeat(256), null, null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("key is 256 characters");
    assertThatThrownBy(() -> new OutboxMessage("id", "t\n", null, null, null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("control character");
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("h", null);
    assertThatThrownBy(() -> new OutboxMessage("id", "t", null, null, nullValue))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("header");
    assertThatThrownBy(
            () -> new OutboxMessage("id", "t", null, null, Map.of("h", "v".repeat(70_000))))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("at most 65535");
  }

  @Test
  @DisplayName("payload and headers are copies; headers survive the stored form")
  void copiesAndRoundTrips() {
    byte[] payload = {1, 2, 3};
    OutboxMessage m = new OutboxMessage("id", "t", "k", payload, Map.of("b", "2", "a", "ü"));
    payload[0] = 9;
    assertThat(m.payload()).containsExactly(1, 2, 3);
    m.payload()[1] = 9;
    assertThat(m.payload()).containsExactly(1, 2, 3);
    assertThat(HeaderCodec.decode(HeaderCodec.encode(m.headers()))).isEqualTo(m.headers());
    assertThat(HeaderCodec.encode(Map.of())).isNull();
    assertThat(m.withId("other").id()).isEqualTo("other");
    assertThat(OutboxMessage.of("t", null, null).id()).hasSize(36);
  }
}
