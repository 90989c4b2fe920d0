package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Ids that arrive from a broker as bytes: strict UTF-8 decoding, then the usual validation. */
class MessageIdFromUtf8Test {

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex.replace(" ", ""));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "order-42",
        "订单-2026-10-17",
        "emoji-\uD83D\uDE00", // a 4-byte sequence decodes to a surrogate pair
        "שלום-עולם", // right-to-left text
        "'; DROP TABLE inbox; --",
      })
  void wellFormedUtf8RoundTrips(String id) {
    assertThat(Message.idFromUtf8(id.getBytes(StandardCharsets.UTF_8))).isEqualTo(id);
  }

  @Test
  void fourByteEmojiFromRawBytes() {
    assertThat(Message.idFromUtf8(hex("F0 9F 98 80"))).isEqualTo("\uD83D\uDE00");
  }

  @Test
  void inputArrayIsNotModified() {
    byte[] bytes = "abc".getBytes(StandardCharsets.UTF_8);
    Message.idFromUtf8(bytes);
    assertThat(bytes).containsExactly('a', 'b', 'c');
  }

  /** Each row: hex bytes, then the offset of the first bad byte the error must name. */
  @ParameterizedTest(name = "{0} -> offset {1}")
  @CsvSource({
    // a lone continuation byte
    "41 80 42, 1",
    // a lead byte followed by a non-continuation
    "61 62 C3 28, 2",
    // overlong encodings of '/' (2 and 3 bytes) and of NUL
    "C0 AF, 0",
    "E0 80 AF, 0",
    "C0 80, 0",
    // bytes that never occur in UTF-8
    "61 FE, 1",
    "FF, 0",
    // a UTF-16 surrogate encoded as UTF-8 (CESU-8 style)
    "78 ED A0 80, 1",
    // code point above U+10FFFF
    "F4 90 80 80, 0",
    // truncated multi-byte sequences at the end of the input
    "69 64 E2 82, 2",
    "F0 9F 98, 0",
    "C3, 0",
  })
  void malformedUtf8IsRefusedNamingTheOffset(String bytes, int offset) {
    assertThatThrownBy(() -> Message.idFromUtf8(hex(bytes)))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("not well-formed UTF-8")
        .hasMessageContaining("at byte offset " + offset + " ");
  }

  @Test
  void decodedIdsAreValidatedLikeAnyOther() {
    assertThatThrownBy(() -> Message.idFromUtf8(null))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("must not be null");
    assertThatThrownBy(() -> Message.idFromUtf8(new byte[0]))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("blank");
    // U+00A0 no-break space, well-formed but blank.
    assertThatThrownBy(() -> Message.idFromUtf8(hex("C2 A0 C2 A0")))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("blank");
    // NUL is well-formed UTF-8 but not a storable id.
    assertThatThrownBy(() -> Message.idFromUtf8(hex("61 00 62")))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("control character U+0000");
    assertThatThrownBy(() -> Message.idFromUtf8("x".repeat(256).getBytes(StandardCharsets.UTF_8)))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("limit is 255");
    // 255 characters is the limit in UTF-16 units, not bytes: 255 CJK chars are 765 bytes.
    String cjk = "中".repeat(255);
    assertThat(Message.idFromUtf8(cjk.getBytes(StandardCharsets.UTF_8))).isEqualTo(cjk);
    // A 10 KB id is refused by length, and the message stays short.
    byte[] tenKb = "k".repeat(10 * 1024).getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> Message.idFromUtf8(tenKb))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("is 10240 characters long")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
    // 10 KB of zero bytes is well-formed UTF-8; it is refused (by length) before any store sees it.
    assertThatThrownBy(() -> Message.idFromUtf8(new byte[10 * 1024]))
        .isExactlyInstanceOf(InvalidMessageIdException.class);
  }
}
