package dev.archlab.inbox.chaos;

import java.time.Duration;

/**
 * How big the chaos runs are: {@code short} (the default, what CI runs) or {@code long} (by hand,
 * {@code -Dchaos.scale=long}). One place, so the figures in the report name the scale they came
 * from.
 */
enum Scale {
  // No load window: the load runs exactly one round (48 000 deliveries, checked like every round)
  // instead of as many as 20 s allowed (two or three, 27-30 s on a 2-core CI machine); the long
  // scale keeps starting rounds for a minute.
  SHORT(3_000, Duration.ofSeconds(15), 4_000, Duration.ZERO),
  LONG(10_000, Duration.ofSeconds(60), 10_000, Duration.ofSeconds(60));

  /** Distinct ids per fault run. */
  final int messages;

  /** How long faults keep being injected. */
  final Duration faultWindow;

  /** Distinct ids per load round. */
  final int loadMessages;

  /** How long the load keeps starting new rounds; zero runs one round. */
  final Duration loadWindow;

  Scale(int messages, Duration faultWindow, int loadMessages, Duration loadWindow) {
    this.messages = messages;
    this.faultWindow = faultWindow;
    this.loadMessages = loadMessages;
    this.loadWindow = loadWindow;
  }

  static Scale current() {
    return valueOf(
        System.getProperty("chaos.scale", "short").strip().toUpperCase(java.util.Locale.ROOT));
  }

  String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
