package dev.archlab.inbox.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses durations written like {@code 500ms}, {@code 2s}, {@code 5m}, {@code 36h}, {@code 7d}. */
final class Durations implements ITypeConverter<Duration> {

  private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value == null ? "" : value.strip());
    if (!m.matches()) {
      throw new TypeConversionException(
          "invalid duration '"
              + value
              + "': use a whole number followed by ms, s, m, h or d (e.g. 500ms, 2s, 5m, 36h, 7d)");
    }
    long n = Long.parseLong(m.group(1));
    switch (m.group(2)) {
      case "ms":
        return Duration.ofMillis(n);
      case "s":
        return Duration.ofSeconds(n);
      case "m":
        return Duration.ofMinutes(n);
      case "h":
        return Duration.ofHours(n);
      default:
        return Duration.ofDays(n);
    }
  }

  /** The shortest exact rendering in the same units, e.g. PT36H → 36h. */
  static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000L == 0 && ms > 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms % 3_600_000L == 0 && ms > 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms % 60_000L == 0 && ms > 0) {
      return ms / 60_000L + "m";
    }
    if (ms % 1_000L == 0 && ms > 0) {
      return ms / 1_000L + "s";
    }
    return ms + "ms";
  }
}
