package dev.archlab.inbox.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

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

  /** A progress bar redrawn in place on a terminal; silent when output is not a terminal. */
  static final class Progress {
    private final PrintWriter err;
    private final boolean enabled;
    private final String label;
    private final long total;
    private long lastDraw;

    Progress(PrintWriter err, String label, long total) {
      this.err = err;
      this.enabled = System.console() != null;
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
