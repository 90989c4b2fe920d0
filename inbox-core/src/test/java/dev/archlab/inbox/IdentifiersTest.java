package dev.archlab.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdentifiersTest {

  private static final int ID_LIMIT = 255;
  private static final int NAME_LIMIT = 128;
  private static final String EMOJI = "\uD83D\uDE00"; // U+1F600, one surrogate pair

  @Test
  void nullIdIsRefused() {
    assertThatThrownBy(() -> Identifiers.requireMessageId(null, ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessage("invalid message id null: must not be null");
  }

  @Test
  void emptyIdIsRefusedAsBlank() {
    assertThatThrownBy(() -> Identifiers.requireMessageId("", ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessage("invalid message id '': must not be blank");
  }

  @ParameterizedTest
  @ValueSource(strings = {" ", "   ", "\t", " \n ", "\u2003", "\u3000"})
  void whitespaceOnlyIdIsRefusedAsBlank(String id) {
    assertThatThrownBy(() -> Identifiers.requireMessageId(id, ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageEndingWith(": must not be blank");
  }

  /**
   * An id of only no-break spaces is as blank as one of plain spaces (Unicode White_Space), but
   * String.isBlank() does not see it that way.
   */
  @ParameterizedTest
  @ValueSource(strings = {"\u00A0", "\u00A0\u00A0", "\u2007", "\u202F"})
  void noBreakSpaceOnlyIdIsRefusedAsBlank(String id) {
    assertThatThrownBy(() -> Identifiers.requireMessageId(id, ID_LIMIT))
        .isInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("blank");
  }

  @Test
  void idOfExactlyTheLimitIsAccepted() {
    String id = "x".repeat(ID_LIMIT);

    assertThat(Identifiers.requireMessageId(id, ID_LIMIT)).isSameAs(id);
  }

  @Test
  void idOneOverTheLimitIsRefusedWithItsLength() {
    String id = "x".repeat(ID_LIMIT + 1);

    assertThatThrownBy(() -> Identifiers.requireMessageId(id, ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("is 256 characters long, the limit is 255")
        // The huge value is shortened in the message, not dumped whole.
        .hasMessageContaining("... (256 chars)")
        .hasMessageNotContaining("x".repeat(41));
  }

  @Test
  void lengthIsCountedInUtf16CharsSoEmojiCountTwice() {
    String fits = EMOJI.repeat(127) + "a"; // 255 chars
    String tooLong = EMOJI.repeat(128); // 256 chars

    assertThat(Identifiers.requireMessageId(fits, ID_LIMIT)).isSameAs(fits);
    assertThatThrownBy(() -> Identifiers.requireMessageId(tooLong, ID_LIMIT))
        .isInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("256 characters");
  }

  @Test
  void nulIsRefusedNamingTheCharacterAndIndex() {
    assertThatThrownBy(() -> Identifiers.requireMessageId("abc\u0000def", ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessage(
            "invalid message id 'abc\\u0000def': contains control character U+0000 at index 3");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\nb", "a\rb", "a\tb", "a\u001Bb", "a\u007Fb", "a\u0085b"})
  void controlCharactersAreRefused(String id) {
    String hex = String.format("%04X", (int) id.charAt(1));

    assertThatThrownBy(() -> Identifiers.requireMessageId(id, ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("contains control character U+" + hex + " at index 1");
  }

  @Test
  void loneHighSurrogateIsRefused() {
    assertThatThrownBy(() -> Identifiers.requireMessageId("ab\uD83D", ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("contains an unpaired surrogate at index 2 (not valid UTF-8)");
  }

  @Test
  void loneHighSurrogateBeforeAnOrdinaryCharIsRefused() {
    assertThatThrownBy(() -> Identifiers.requireMessageId("a\uD83Dz", ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("unpaired surrogate at index 1");
  }

  @Test
  void loneLowSurrogateIsRefused() {
    assertThatThrownBy(() -> Identifiers.requireMessageId("\uDE00abc", ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("unpaired surrogate at index 0");
  }

  @Test
  void surrogatePairInTheWrongOrderIsRefused() {
    assertThatThrownBy(() -> Identifiers.requireMessageId("x\uDE00\uD83D", ID_LIMIT))
        .isExactlyInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("unpaired surrogate at index 1");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "order-42",
        "\uD83D\uDE00\uD83C\uDF89", // emoji as surrogate pairs
        "订单-一二三",
        "注文\uD83D\uDE00id",
        "'; drop table x; --",
        "a\"b`c\\d%e_f*",
        " leading and trailing spaces ",
        "550e8400-e29b-41d4-a716-446655440000"
      })
  void legalIdsAreReturnedUnchanged(String id) {
    assertThat(Identifiers.requireMessageId(id, ID_LIMIT)).isSameAs(id);
  }

  @Test
  void consumerNameRulesMirrorIdRulesWithTheirOwnException() {
    assertThatThrownBy(() -> Identifiers.requireConsumerName(null, NAME_LIMIT))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessage("invalid consumer name null: must not be null");
    assertThatThrownBy(() -> Identifiers.requireConsumerName("  ", NAME_LIMIT))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessage("invalid consumer name '  ': must not be blank");
    assertThatThrownBy(() -> Identifiers.requireConsumerName("n".repeat(129), NAME_LIMIT))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("is 129 characters long, the limit is 128");
    assertThatThrownBy(() -> Identifiers.requireConsumerName("bil\u0000ling", NAME_LIMIT))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("control character U+0000 at index 3");
    assertThatThrownBy(() -> Identifiers.requireConsumerName("bill\uD800", NAME_LIMIT))
        .isExactlyInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("unpaired surrogate at index 4");
  }

  @Test
  void consumerNameAtTheLimitAndUnicodeNamesAreAccepted() {
    String atLimit = "n".repeat(NAME_LIMIT);
    String unicode = "计费-\uD83D\uDCB0";

    assertThat(Identifiers.requireConsumerName(atLimit, NAME_LIMIT)).isSameAs(atLimit);
    assertThat(Identifiers.requireConsumerName(unicode, NAME_LIMIT)).isSameAs(unicode);
  }

  @Test
  void quoteEscapesControlAndSurrogateCharsAndShortensLongValues() {
    assertThat(Identifiers.quote(null)).isEqualTo("null");
    assertThat(Identifiers.quote("a\u0000b")).isEqualTo("'a\\u0000b'");
    assertThat(Identifiers.quote("\uD83D")).isEqualTo("'\\ud83d'");
    assertThat(Identifiers.quote("y".repeat(100)))
        .isEqualTo("'" + "y".repeat(40) + "'... (100 chars)");
  }

  @Test
  void publicChecksApplyTheLibrarysOwnLimits() {
    String longestId = "i".repeat(Message.MAX_ID_LENGTH);
    String longestName = "n".repeat(IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);

    assertThat(Identifiers.requireMessageId(longestId)).isSameAs(longestId);
    assertThat(Identifiers.requireConsumerName(longestName)).isSameAs(longestName);
    assertThatThrownBy(() -> Identifiers.requireMessageId(longestId + "i"))
        .isInstanceOf(InvalidMessageIdException.class)
        .hasMessageContaining("the limit is " + Message.MAX_ID_LENGTH);
    assertThatThrownBy(() -> Identifiers.requireConsumerName(longestName + "n"))
        .isInstanceOf(InvalidConsumerNameException.class)
        .hasMessageContaining("the limit is " + IdempotentConsumer.MAX_CONSUMER_NAME_LENGTH);
    assertThatThrownBy(() -> Identifiers.requireConsumerName(" orders"))
        .isInstanceOf(InvalidConsumerNameException.class);
  }
}
