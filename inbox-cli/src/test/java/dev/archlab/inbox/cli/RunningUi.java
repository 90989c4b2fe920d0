package dev.archlab.inbox.cli;

import java.io.PrintWriter;
import java.io.Writer;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code inbox ui} run in-process on a thread, as {@code InboxCli.execute} runs every command: the
 * URL is taken from the line the command prints (so port 0 works), and {@link #close} stops it the
 * way the command allows, by interrupting its thread, then checks that it exited with 0.
 */
final class RunningUi implements AutoCloseable {

  /** How long starting or stopping may take before the test fails: generous, for a loaded CI. */
  static final long BACKSTOP_SECONDS = 120;

  private static final Pattern SERVING = Pattern.compile("serving (http://\\S+/)");

  private final Thread thread;
  private final Capture out = new Capture();
  private final Capture err = new Capture();
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final URI uri;

  private RunningUi(String... args) throws Exception {
    thread =
        new Thread(
            () -> {
              try {
                exit.complete(
                    InboxCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true)));
              } catch (Throwable t) {
                exit.completeExceptionally(t);
              } finally {
                // A command that ended before printing its URL fails the wait below with its
                // output.
                out.serving.completeExceptionally(
                    new AssertionError("inbox ui ended before serving:\n" + out + "\n" + err));
              }
            },
            "inbox-ui-under-test");
    thread.start();
    uri = URI.create(out.serving.get(BACKSTOP_SECONDS, TimeUnit.SECONDS));
  }

  static RunningUi start(String... args) throws Exception {
    String[] withUi = new String[args.length + 1];
    withUi[0] = "ui";
    System.arraycopy(args, 0, withUi, 1, args.length);
    return new RunningUi(withUi);
  }

  URI uri() {
    return uri;
  }

  URI resolve(String path) {
    return uri.resolve(path);
  }

  /** What the command printed on stderr so far (the action log). */
  String err() {
    return err.toString();
  }

  String out() {
    return out.toString();
  }

  @Override
  public void close() throws Exception {
    thread.interrupt();
    int code = exit.get(BACKSTOP_SECONDS, TimeUnit.SECONDS);
    if (code != 0) {
      throw new AssertionError("inbox ui exited with " + code + ":\n" + out + "\n" + err);
    }
  }

  /** A thread-safe text sink that notices the line with the URL. */
  private static final class Capture extends Writer {
    private final StringBuilder text = new StringBuilder();
    final CompletableFuture<String> serving = new CompletableFuture<>();

    @Override
    public synchronized void write(char[] buf, int off, int len) {
      text.append(buf, off, len);
      Matcher m = SERVING.matcher(text);
      if (m.find()) {
        serving.complete(m.group(1));
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    @Override
    public synchronized String toString() {
      return text.toString();
    }
  }
}
