package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.ConsumerBuilder;
import dev.archlab.inbox.DeadLetterHandler;
import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxListener;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.InvalidConfigurationException;
import dev.archlab.inbox.InvalidConsumerNameException;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.jdbc.consumer.BatchConsumer;
import dev.archlab.inbox.jdbc.consumer.OneCommitConsumer;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The three consumers take their shared options through one builder base, so each refuses and
 * accepts them the same way. No database is touched: building a store or a consumer never connects.
 */
class ConsumerBuildersTest {

  private static final InboxConfig CONFIG =
      InboxConfig.custom().lease(Duration.ofSeconds(7)).build();

  private final JdbcInboxStore store = JdbcInboxStore.builder(new JdbcDataSource()).build();

  /** A builder of each consumer, from the name. */
  private List<Function<String, ConsumerBuilder<?>>> builders() {
    return List.of(
        name -> IdempotentConsumer.builder(name, store),
        name -> OneCommitConsumer.builder(name, store),
        name -> BatchConsumer.builder(name, store));
  }

  @Test
  void everyBuilderRefusesTheSameBadNameWithTheSameException() {
    for (Function<String, ConsumerBuilder<?>> builder : builders()) {
      assertThatThrownBy(() -> builder.apply(" orders"))
          .isInstanceOf(InvalidConsumerNameException.class)
          .hasMessageContaining("starts or ends with whitespace");
    }
  }

  @Test
  void everyBuilderRefusesEachNullOptionNamingIt() {
    for (Function<String, ConsumerBuilder<?>> builder : builders()) {
      ConsumerBuilder<?> b = builder.apply("orders");
      assertThatThrownBy(() -> b.config(null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("config must not be null");
      assertThatThrownBy(() -> b.listener(null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("listener must not be null");
      assertThatThrownBy(() -> b.deadLetterHandler(null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("deadLetterHandler must not be null");
      assertThatThrownBy(() -> b.clock((Clock) null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("clock must not be null");
      assertThatThrownBy(() -> b.clock((InstantSource) null))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessage("clock must not be null");
    }
  }

  @Test
  void everyConsumerReportsItsNameAndConfig() {
    InstantSource clock = InstantSource.system();
    IdempotentConsumer lease =
        IdempotentConsumer.builder("lease-mode", store)
            .config(CONFIG)
            .listener(InboxListener.NOOP)
            .deadLetterHandler(DeadLetterHandler.NONE)
            .clock(clock)
            .handler((m, a) -> {})
            .build();
    OneCommitConsumer oneCommit =
        OneCommitConsumer.builder("one-commit", store)
            .config(CONFIG)
            .listener(InboxListener.NOOP)
            .deadLetterHandler(DeadLetterHandler.NONE)
            .clock(clock)
            .handler((m, a, c) -> {})
            .build();
    BatchConsumer batch =
        BatchConsumer.builder("batch", store)
            .config(CONFIG)
            .listener(InboxListener.NOOP)
            .deadLetterHandler(DeadLetterHandler.NONE)
            .clock(clock)
            .handler((ms, c) -> {})
            .build();

    assertThat(List.of(lease.name(), oneCommit.name(), batch.name()))
        .containsExactly("lease-mode", "one-commit", "batch");
    assertThat(List.of(lease.config(), oneCommit.config(), batch.config())).containsOnly(CONFIG);
    lease.close();
    oneCommit.close();
    batch.close();
  }

  @Test
  void aOneCommitConsumerTakesExactlyOneKindOfHandler() {
    assertThatThrownBy(() -> OneCommitConsumer.builder("neither", store).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("needs a handler: call handler(...) or batchHandler(...)");
    assertThatThrownBy(
            () ->
                OneCommitConsumer.builder("both", store)
                    .handler((m, a, c) -> {})
                    .batchHandler((ms, c) -> {})
                    .build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("takes handler(...) or batchHandler(...), not both");
  }

  @Test
  void modesGroupOnlyWhereTheyCanAndTakeTheBatchConsumersName() {
    OneCommitConsumer oneCommit =
        OneCommitConsumer.builder("one-commit", store).handler((m, a, c) -> {}).build();
    ConsumeMode single = oneCommit.asMode();
    assertThat(single.maxBatch()).isEqualTo(1);
    assertThat(single.inOrderBatchesOf(1)).isSameAs(single);
    assertThat(single.inOrderBatchesOf(500).maxBatch()).isEqualTo(500);
    assertThat(single.batchesOf(200).maxBatch()).isEqualTo(200);
    assertThat(single.batchesOf(200).consumerName()).isEqualTo("one-commit");
    assertThatThrownBy(() -> single.inOrderBatchesOf(0))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessage("maxBatch must be >= 1, was 0");

    ConsumeMode perMessage =
        IdempotentConsumer.builder("lease-mode", store).handler((m, a) -> {}).build().asMode();
    assertThat(perMessage.inOrderBatchesOf(1)).isSameAs(perMessage);
    assertThat(perMessage.inOrderBatchesOf(500).maxBatch()).isEqualTo(500);
    assertThat(perMessage.batchesOf(500)).isSameAs(perMessage);

    ConsumeMode batch =
        BatchConsumer.builder("batch", store).handler((ms, c) -> {}).build().asMode(50);
    assertThat(batch.consumerName()).isEqualTo("batch");
    assertThat(batch.maxBatch()).isEqualTo(50);
    assertThat(batch.inOrderBatchesOf(500)).isSameAs(batch);
  }
}
