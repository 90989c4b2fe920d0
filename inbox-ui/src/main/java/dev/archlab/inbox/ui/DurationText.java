package dev.archlab.inbox.ui;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar operators type, on the command line and on the page: a whole number of
 * at most nine digits followed by {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} ({@code
 * 500ms}, {@code 2s}, {@code 5m}, {@code 36h}, {@code 7d}). What {@link #format} writes for a
 * positive duration of whole milliseconds, {@link #parse} reads back, as long as the number fits
 * the nine digits.
 */
public final class DurationText {

  /** What to tell someone who typed something else. */
  public static final String EXPECTED =
      "use a whole number followed by ms, s, m, h or d (e.g. 500ms, 2s, 5m, 36h, 7d)";

  private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  private DurationText() {}

  /**
   * Reads a duration.
   *
   * @param text what the operator typed; surrounding blanks are ignored, null spells nothing
   * @return the duration it spells, or empty if it spells none
   */
  public static Optional<Duration> parse(String text) {
    Matcher m = FORMAT.matcher(text == null ? "" : text.strip());
    if (!m.matches()) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    return Optional.of(
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        });
  }

  /**
   * Writes a duration the way an operator would type it.
   *
   * @param d a duration; anything below a millisecond is dropped
   * @return the shortest exact spelling, in the largest unit that divides it (PT36H → 36h)
   */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms > 0) {
      if (ms % 86_400_000L == 0) {
        return ms / 86_400_000L + "d";
      }
      if (ms % 3_600_000L == 0) {
        return ms / 3_600_000L + "h";
      }
      if (ms % 60_000L == 0) {
        return ms / 60_000L + "m";
      }
      if (ms % 1_000L == 0) {
        return ms / 1_000L + "s";
      }
    }
    return ms + "ms";
  }
}
