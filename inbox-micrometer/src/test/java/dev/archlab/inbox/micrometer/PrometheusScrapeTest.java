package dev.archlab.inbox.micrometer;

import static dev.archlab.inbox.micrometer.Fixtures.config;
import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.memory.MemoryInboxStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What Prometheus sees: the dotted Micrometer names become the documented series, with the consumer
 * and outcome as labels; a message delivered three times shows one applied and two duplicates.
 */
class PrometheusScrapeTest {

  @Test
  void aScrapeShowsTheDocumentedSeries() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MemoryInboxStore store = new MemoryInboxStore();
    InboxMetrics metrics = InboxMetrics.builder().stats(InboxStatsSource.scanning(store)).build();
    metrics.bindTo(prometheus);
    IdempotentConsumer orders =
        IdempotentConsumer.builder("orders", store)
            .config(config(3))
            .listener(metrics.listener())
            .handler((m, a) -> {})
            .build();
    ConsumeTimer timer = metrics.timer("orders");
    for (int i = 0; i < 3; i++) {
      timer.consume(Message.of("order-17"), orders::consume);
    }

    String text = prometheus.scrape();

    assertLine(text, "inbox_consume_seconds_count{consumer=\"orders\",outcome=\"applied\"} 1");
    assertLine(text, "inbox_consume_seconds_count{consumer=\"orders\",outcome=\"duplicate\"} 2");
    assertLine(text, "inbox_consume_seconds_count{consumer=\"orders\",outcome=\"in_flight\"} 0");
    assertLine(text, "inbox_deliveries_total{consumer=\"orders\",outcome=\"applied\"} 1");
    assertLine(text, "inbox_deliveries_total{consumer=\"orders\",outcome=\"duplicate\"} 2");
    assertLine(text, "inbox_deliveries_total{consumer=\"orders\",outcome=\"dead\"} 0");
    assertLine(text, "inbox_records{consumer=\"orders\",state=\"done\"} 1");
    assertLine(text, "inbox_records{consumer=\"orders\",state=\"processing\"} 0");
    assertLine(text, "inbox_leases_expired{consumer=\"orders\"} 0");
    assertLine(text, "inbox_processing_oldest_age_seconds{consumer=\"orders\"} 0");
    for (String counter :
        List.of(
            "inbox_takeovers_total",
            "inbox_retries_total",
            "inbox_completion_failures_total",
            "inbox_dead_letters_total",
            "inbox_lease_overruns_total",
            "inbox_prunes_total",
            "inbox_pruned_records_total")) {
      assertLine(text, counter + "{consumer=\"orders\"} 0");
    }
    assertThat(text).doesNotContain("order-17");
  }

  /** A sample line with this name, labels and value (written as 2 or 2.0). */
  private static void assertLine(String text, String sample) {
    Pattern line = Pattern.compile("(?m)^" + Pattern.quote(sample) + "(\\.0)?$");
    assertThat(line.matcher(text).find()).as(sample + " in\n" + text).isTrue();
  }
}
