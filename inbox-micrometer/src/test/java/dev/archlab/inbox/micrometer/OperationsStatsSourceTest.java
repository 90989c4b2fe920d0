package dev.archlab.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@link InboxStatsSource#of}: the figures are the operations' overviews, field for field, and the
 * age of a PROCESSING record created while the store counted (slightly negative by the store's
 * clock) reads as zero instead of failing the gauges.
 */
class OperationsStatsSourceTest {

  /** Operations whose only answer is a fixed overview list; the gauges call nothing else. */
  private static InboxOperations answering(List<ConsumerOverview> overviews) {
    return new InboxOperations() {
      @Override
      public String location() {
        return "fixed";
      }

      @Override
      public Instant currentTime() {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<ConsumerOverview> stats(Duration retention) {
        return overviews;
      }

      @Override
      public List<InboxRecord> list(RecordState state, String consumer, int limit) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Optional<InboxRecord> find(String consumer, String messageId) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Optional<InboxRecord> release(String consumer, String messageId) {
        throw new UnsupportedOperationException();
      }

      @Override
      public long retryDead(String consumer, List<String> messageIds) {
        throw new UnsupportedOperationException();
      }

      @Override
      public long countPrunable(String consumer, Instant before) {
        throw new UnsupportedOperationException();
      }

      @Override
      public long prune(String consumer, Instant before, LongConsumer progress) {
        throw new UnsupportedOperationException();
      }
    };
  }

  @Test
  void figuresAreTheOverviewsAndANegativeAgeReadsAsZero() {
    InboxStatsSource source =
        InboxStatsSource.of(
            answering(
                List.of(
                    new ConsumerOverview("orders", 3, 5, 1, 2, Duration.ofSeconds(42), 4),
                    new ConsumerOverview("sms", 1, 0, 0, 0, Duration.ofMillis(-3), 0))));

    assertThat(source.read())
        .containsExactly(
            new InboxStats("orders", 3, 5, 1, 2, Duration.ofSeconds(42)),
            new InboxStats("sms", 1, 0, 0, 0, Duration.ZERO));
  }

  @Test
  void refusesNoOperations() {
    assertThatThrownBy(() -> InboxStatsSource.of(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("operations must not be null");
  }
}
