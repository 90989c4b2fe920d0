package dev.archlab.inbox.cli;

import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/** Small formatting helpers shared by the commands: JSON strings, ages, progress bars. */
final class Output {
  private Output() {}

  static String json(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"').toString();
  }

  static String age(Duration d) {
    long s = d.getSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m" + (s % 60 > 0 ? s % 60 + "s" : "");
    }
    if (s < 86_400) {
      return s / 3600 + "h" + (s % 3600 / 60 > 0 ? s % 3600 / 60 + "m" : "");
    }
    return s / 86_400 + "d" + (s % 86_400 / 3600 > 0 ? s % 86_400 / 3600 + "h" : "");
  }

  static String instant(Instant t) {
    return t == null ? "-" : t.toString();
  }

  /**
   * Whether a progress bar may be drawn on stderr: only on a terminal. Replaceable in tests, which
   * run under whatever the build tool's stdio is.
   */
  static BooleanSupplier progressTerminal = Output::stderrIsTerminal;

  /**
   * Whether this process talks to a terminal: a {@link Console} exists and, on JDK 22 and later
   * (where {@code System.console()} is no longer null when output is redirected), {@code
   * Console.isTerminal()} says so; and, where the platform tells (Linux {@code /proc}), stderr
   * itself is a terminal device, since the console only speaks for stdin and stdout.
   */
  static boolean stderrIsTerminal() {
    Console console = System.console();
    return showProgress(
        console != null, console == null ? null : isTerminal(console), stderrDevice());
  }

  /**
   * The decision of {@link #stderrIsTerminal()}.
   *
   * @param consoleExists {@code System.console() != null}
   * @param isTerminal what {@code Console.isTerminal()} said; null before JDK 22, which lacks it
   *     (there a console exists only when stdin and stdout are a terminal)
   * @param stderrDevice what stderr is connected to; null where the platform does not tell
   */
  static boolean showProgress(boolean consoleExists, Boolean isTerminal, String stderrDevice) {
    if (!consoleExists || Boolean.FALSE.equals(isTerminal)) {
      return false;
    }
    return stderrDevice == null
        || stderrDevice.startsWith("/dev/pts/")
        || stderrDevice.startsWith("/dev/tty")
        || stderrDevice.equals("/dev/console");
  }

  /** {@code Console.isTerminal()} where it exists (JDK 22+), else null. */
  static Boolean isTerminal(Console console) {
    Method isTerminal;
    try {
      isTerminal = Console.class.getMethod("isTerminal");
    } catch (NoSuchMethodException beforeJdk22) {
      return null;
    }
    try {
      return Boolean.TRUE.equals(isTerminal.invoke(console));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }

  /** What file descriptor 2 points to, on Linux; null where that cannot be told. */
  private static String stderrDevice() {
    try {
      return Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
  }

  /** A progress bar redrawn in place on a terminal; silent when stderr is not a terminal. */
  static final class Progress {
    private final PrintWriter err;
    private final boolean enabled;
    private final String label;
    private final long total;
    private long lastDraw;

    /**
     * @param wanted false when the user asked for no bar ({@code --no-progress})
     */
    Progress(PrintWriter err, String label, long total, boolean wanted) {
      this.err = err;
      this.enabled = wanted && progressTerminal.getAsBoolean();
      this.label = label;
      this.total = Math.max(1, total);
    }

    synchronized void update(long done) {
      long now = System.nanoTime();
      if (!enabled || now - lastDraw < 100_000_000L && done < total) {
        return;
      }
      lastDraw = now;
      int width = 30;
      int filled = (int) Math.min(width, done * width / total);
      err.print(
          "\r"
              + label
              + " ["
              + "#".repeat(filled)
              + " ".repeat(width - filled)
              + "] "
              + done
              + "/"
              + total);
      err.flush();
    }

    synchronized void finish() {
      if (enabled) {
        err.println();
      }
    }
  }
}
