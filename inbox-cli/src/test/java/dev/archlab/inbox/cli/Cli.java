package dev.archlab.inbox.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the command in-process and captures what it printed. */
final class Cli {

  record Result(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = InboxCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(code, out.toString(), err.toString());
  }

  private Cli() {}
}
