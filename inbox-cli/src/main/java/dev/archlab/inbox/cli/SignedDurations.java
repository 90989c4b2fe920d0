package dev.archlab.inbox.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/** Like {@link Durations}, with an optional leading minus sign (e.g. {@code -5m}). */
final class SignedDurations implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String v = value == null ? "" : value.strip();
    return v.startsWith("-") ? Durations.parse(v.substring(1)).negated() : Durations.parse(v);
  }
}
