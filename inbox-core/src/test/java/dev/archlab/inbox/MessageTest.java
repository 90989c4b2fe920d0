package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.memory.MemoryInboxStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageTest {

  @Test
  void nullIdIsRefused() {
    assertThatThrownBy(() -> Message.of(null))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("must not be null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t\t", "\n"})
  void blankIdIsRefused(String id) {
    assertThatThrownBy(() -> Message.of(id, "t", new byte[0]))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("must not be blank");
  }

  @Test
  void idOf256CharsIsRefusedAnd255Accepted() {
    assertThat(Message.MAX_ID_LENGTH).isEqualTo(255);
    assertThat(Message.of("i".repeat(255)).id()).hasSize(255);
    assertThatThrownBy(() -> Message.of("i".repeat(256)))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("is 256 characters long, the limit is 255");
  }

  @Test
  void nulAndControlCharsAreRefused() {
    assertThatThrownBy(() -> Message.of("id\u0000"))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("control character U+0000 at index 2");
    assertThatThrownBy(() -> Message.of("\u0007bell"))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("control character U+0007 at index 0");
  }

  @Test
  void unpairedSurrogateIsRefused() {
    assertThatThrownBy(() -> Message.of("half-\uD83D"))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("unpaired surrogate at index 5");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\uD83D\uDE00-\uD83D\uDC4D",
        "消息-编号-七",
        "'; drop table x; --",
        "1' OR '1'='1",
        "%_\\\"`"
      })
  void unusualButLegalIdsAreKeptUnchangedThroughConsumerAndStore(String id) {
    MemoryInboxStore store = new MemoryInboxStore(new SettableClock());
    AtomicReference<String> seen = new AtomicReference<>();
    try (IdempotentConsumer consumer =
        IdempotentConsumer.builder("c", store).handler((m, a) -> seen.set(m.id())).build()) {
      Message message = Message.of(id);

      assertThat(message.id()).isEqualTo(id);
      assertThat(consumer.consume(message).status()).isEqualTo(Outcome.Status.APPLIED);
      assertThat(consumer.consume(Message.of(id)).status()).isEqualTo(Outcome.Status.DUPLICATE);
    }
    assertThat(seen.get()).isEqualTo(id);
    assertThat(store.find("c", id))
        .hasValueSatisfying(r -> assertThat(r.messageId()).isEqualTo(id));
  }

  @Test
  void payloadPassedInIsCopied() {
    byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);
    Message m = Message.of("m1", "t", payload);

    payload[0] = 'J';

    assertThat(new String(m.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
  }

  @Test
  void payloadHandedOutIsACopy() {
    Message m = Message.of("m1", "t", "hello".getBytes(StandardCharsets.UTF_8));

    byte[] out = m.payload();
    out[0] = 'J';

    assertThat(out).isNotSameAs(m.payload());
    assertThat(new String(m.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
  }

  @Test
  void headersAreAnImmutableCopy() {
    Map<String, String> headers = new HashMap<>();
    headers.put("k", "v");
    Message m = new Message("m1", "t", new byte[0], headers);

    headers.put("k2", "v2");

    assertThat(m.headers()).containsExactly(Map.entry("k", "v"));
    assertThatThrownBy(() -> m.headers().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void nullTopicPayloadAndHeadersBecomeEmpty() {
    Message m = new Message("m1", null, null, null);

    assertThat(m.topic()).isEmpty();
    assertThat(m.payload()).isEmpty();
    assertThat(m.headers()).isEmpty();
    assertThat(Message.of("m1")).isEqualTo(m);
  }

  @Test
  void equalsAndHashCodeCompareThePayloadByContent() {
    Message a = Message.of("m1", "t", new byte[] {1, 2, 3});
    Message b = Message.of("m1", "t", new byte[] {1, 2, 3});

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(Message.of("m1", "t", new byte[] {1, 2, 4}));
    assertThat(a).isNotEqualTo(Message.of("m2", "t", new byte[] {1, 2, 3}));
    assertThat(a).isNotEqualTo(Message.of("m1", "u", new byte[] {1, 2, 3}));
    assertThat(a).isNotEqualTo(new Message("m1", "t", new byte[] {1, 2, 3}, Map.of("h", "1")));
    assertThat(a).isNotEqualTo(null).isNotEqualTo("m1");
  }

  @Test
  void toStringShowsThePayloadSizeNotItsBytes() {
    Message m = Message.of("m1", "orders", "secret".getBytes(StandardCharsets.UTF_8));

    assertThat(m.toString())
        .contains("m1")
        .contains("orders")
        .contains("6 bytes")
        .doesNotContain("secret");
  }
}
