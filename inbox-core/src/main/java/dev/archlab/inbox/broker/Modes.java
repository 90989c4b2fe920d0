package dev.archlab.inbox.broker;

import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/** The two shapes of {@link ConsumeMode}, kept out of the interface so they are not API. */
final class Modes {

  private Modes() {}

  static void requireBatchSize(int size) {
    if (size < 1) {
      throw new InvalidConfigurationException("maxBatch must be >= 1, was " + size);
    }
  }

  /** A mode whose size a loop does not change. */
  record Fixed(String consumerName, int maxBatch, Function<List<Message>, List<Outcome>> call)
      implements ConsumeMode {
    @Override
    public List<Outcome> consume(List<Message> messages) {
      return call.apply(messages);
    }
  }

  /** One message per call; {@code unordered} null when it does not group in an unordered loop. */
  record Single(
      String consumerName,
      Function<Message, Outcome> one,
      Function<List<Message>, List<Outcome>> inOrder,
      Function<List<Message>, List<Outcome>> unordered)
      implements ConsumeMode {

    Single {
      Objects.requireNonNull(consumerName, "consumerName");
      Objects.requireNonNull(one, "one");
      Objects.requireNonNull(inOrder, "inOrder");
    }

    @Override
    public int maxBatch() {
      return 1;
    }

    @Override
    public List<Outcome> consume(List<Message> messages) {
      return List.of(one.apply(messages.get(0)));
    }

    @Override
    public ConsumeMode inOrderBatchesOf(int maxMessages) {
      requireBatchSize(maxMessages);
      return maxMessages == 1 ? this : new Fixed(consumerName, maxMessages, inOrder);
    }

    @Override
    public ConsumeMode batchesOf(int maxMessages) {
      requireBatchSize(maxMessages);
      return maxMessages == 1 || unordered == null
          ? this
          : new Fixed(consumerName, maxMessages, unordered);
    }
  }
}
