package dev.archlab.inbox.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which call a mode makes as a loop groups it, and what it refuses. */
class ConsumeModeTest {

  private final List<String> calls = new ArrayList<>();

  private List<Outcome> answer(String call, List<Message> messages) {
    calls.add(call + ":" + messages.size());
    List<Outcome> out = new ArrayList<>();
    for (Message m : messages) {
      out.add(Outcome.applied(m.id(), 1, null));
    }
    return out;
  }

  private static List<Message> messages(int n) {
    List<Message> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Message.of("m-" + i, "t", new byte[0]));
    }
    return out;
  }

  @Test
  void aSingleModeUsesItsBatchCallsOnlyWhereALoopGroups() {
    ConsumeMode single =
        ConsumeMode.single(
            "c",
            m -> answer("one", List.of(m)).get(0),
            ms -> answer("inOrder", ms),
            ms -> answer("unordered", ms));
    assertThat(single.maxBatch()).isEqualTo(1);
    assertThat(single.inOrderBatchesOf(1)).isSameAs(single);
    assertThat(single.batchesOf(1)).isSameAs(single);
    single.consume(messages(1));
    single.inOrderBatchesOf(5).consume(messages(3));
    single.batchesOf(4).consume(messages(2));
    assertThat(calls).containsExactly("one:1", "inOrder:3", "unordered:2");
    assertThat(single.inOrderBatchesOf(5).maxBatch()).isEqualTo(5);
    assertThat(single.batchesOf(4).consumerName()).isEqualTo("c");
  }

  @Test
  void aSingleModeWithoutAnUnorderedCallStaysSingleInAnUnorderedLoop() {
    ConsumeMode single =
        ConsumeMode.single("c", m -> answer("one", List.of(m)).get(0), ms -> answer("inOrder", ms));
    assertThat(single.batchesOf(100)).isSameAs(single);
  }

  @Test
  void aBatchModeKeepsItsSize() {
    ConsumeMode batches = ConsumeMode.batches("b", 50, ms -> answer("batch", ms));
    assertThat(batches.inOrderBatchesOf(500)).isSameAs(batches);
    assertThat(batches.batchesOf(500)).isSameAs(batches);
    assertThat(batches.maxBatch()).isEqualTo(50);
    batches.consume(messages(7));
    assertThat(calls).containsExactly("batch:7");
  }

  @Test
  void badSizesAndMissingPartsAreRefused() {
    assertThatThrownBy(() -> ConsumeMode.batches("b", 0, ms -> List.of()))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessage("maxBatch must be >= 1, was 0");
    ConsumeMode single = ConsumeMode.single("c", m -> null, ms -> List.of());
    assertThatThrownBy(() -> single.inOrderBatchesOf(0))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(() -> single.batchesOf(-1))
        .isInstanceOf(InvalidConfigurationException.class);
    assertThatThrownBy(() -> ConsumeMode.single(null, m -> null, ms -> List.of()))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ConsumeMode.single("c", m -> null, ms -> List.of(), null))
        .isInstanceOf(NullPointerException.class);
  }
}
