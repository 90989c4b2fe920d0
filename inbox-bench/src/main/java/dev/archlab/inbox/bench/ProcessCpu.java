package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time of one process, or of a server and the worker processes it forks (PostgreSQL's
 * postmaster and its backends), read from {@code /proc/<pid>/stat}. Every figure is NaN where the
 * process is gone or {@code /proc} is unreadable (not Linux), so a missing reading never passes for
 * zero.
 */
final class ProcessCpu {

  /** Clock ticks per second of {@code /proc/<pid>/stat} times: 100 on every Linux we run on. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcessCpu() {}

  /** A process's own time (all its threads) and that of its reaped children. */
  static double seconds(long pid) {
    long[] s = stat(pid);
    return s == null ? Double.NaN : (s[1] + s[2] + s[3] + s[4]) / TICKS_PER_SECOND;
  }

  /**
   * {@link #seconds} of a server plus the own time of every live child, so that the backends of
   * open connections count before they exit (when their time moves into the parent's).
   */
  static double treeSeconds(long pid) {
    long[] parent = stat(pid);
    if (parent == null) {
      return Double.NaN;
    }
    long ticks = parent[1] + parent[2] + parent[3] + parent[4];
    List<Long> children = children(pid);
    if (children == null) {
      return Double.NaN;
    }
    for (long child : children) {
      long[] c = stat(child);
      if (c != null && c[0] == pid) {
        ticks += c[1] + c[2];
      }
    }
    return ticks / TICKS_PER_SECOND;
  }

  /**
   * The live children of a single-threaded server: its {@code task/<pid>/children} list where the
   * kernel offers it, else a scan of {@code /proc} for processes whose parent it is.
   */
  private static List<Long> children(long pid) {
    Path list = Path.of("/proc", Long.toString(pid), "task", Long.toString(pid), "children");
    List<Long> found = new ArrayList<>();
    try {
      if (Files.isReadable(list)) {
        for (String s : Files.readString(list).trim().split("\\s+")) {
          if (!s.isEmpty()) {
            found.add(Long.parseLong(s));
          }
        }
        return found;
      }
      try (var procs = Files.list(Path.of("/proc"))) {
        for (Path p : (Iterable<Path>) procs::iterator) {
          String name = p.getFileName().toString();
          if (name.chars().allMatch(Character::isDigit)) {
            found.add(Long.parseLong(name));
          }
        }
      }
      return found;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** ppid, utime, stime, cutime, cstime of a process, or null if it is gone or unreadable. */
  static long[] stat(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name may hold spaces: the fields start after its closing parenthesis.
      List<String> f = List.of(s.substring(s.lastIndexOf(')') + 2).trim().split("\\s+"));
      return new long[] {
        Long.parseLong(f.get(1)),
        Long.parseLong(f.get(11)),
        Long.parseLong(f.get(12)),
        Long.parseLong(f.get(13)),
        Long.parseLong(f.get(14))
      };
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
