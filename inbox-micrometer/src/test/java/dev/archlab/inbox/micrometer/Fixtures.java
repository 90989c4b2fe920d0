package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.RetryPolicy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/** Shared settings and meter look-ups of the tests. */
final class Fixtures {

  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration BACKOFF = Duration.ofSeconds(1);
  static final Duration RETENTION = Duration.ofHours(2);

  private Fixtures() {}

  /** Fixed lease, no jitter, three attempts, two hours of retention. */
  static InboxConfig config(int maxAttempts) {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(maxAttempts)
                .initialDelay(BACKOFF)
                .maxDelay(BACKOFF)
                .jitter(0)
                .build())
        .dedupWindow(DedupWindow.of(RETENTION, Duration.ofHours(1)))
        .build();
  }

  static Timer consumeTimer(MeterRegistry r, String consumer, String outcome) {
    return r.get("inbox.consume").tag("consumer", consumer).tag("outcome", outcome).timer();
  }

  static long consumeCount(MeterRegistry r, String consumer, String outcome) {
    return consumeTimer(r, consumer, outcome).count();
  }

  static double deliveries(MeterRegistry r, String consumer, String outcome) {
    return r.get("inbox.deliveries")
        .tag("consumer", consumer)
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  static double counter(MeterRegistry r, String name, String consumer) {
    Counter c = r.get(name).tag("consumer", consumer).counter();
    return c.count();
  }

  static double records(MeterRegistry r, String consumer, String state) {
    Gauge g = r.get("inbox.records").tag("consumer", consumer).tag("state", state).gauge();
    return g.value();
  }

  static double expiredLeases(MeterRegistry r, String consumer) {
    return r.get("inbox.leases.expired").tag("consumer", consumer).gauge().value();
  }

  static double oldestAgeSeconds(MeterRegistry r, String consumer) {
    TimeGauge g = r.get("inbox.processing.oldest.age").tag("consumer", consumer).timeGauge();
    return g.value(java.util.concurrent.TimeUnit.SECONDS);
  }
}
