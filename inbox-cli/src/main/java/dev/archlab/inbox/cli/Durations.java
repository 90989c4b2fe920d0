package dev.archlab.inbox.cli;

import dev.archlab.inbox.ui.DurationText;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations written like {@code 500ms}, {@code 2s}, {@code 5m}, {@code 36h}, {@code 7d}: the
 * grammar of {@link DurationText}, which the operator page reads too.
 */
final class Durations implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    return DurationText.parse(value)
        .orElseThrow(
            () ->
                new TypeConversionException(
                    "invalid duration '" + value + "': " + DurationText.EXPECTED));
  }

  /** The shortest exact rendering in the same units, e.g. PT36H → 36h. */
  static String format(Duration d) {
    return DurationText.format(d);
  }
}
