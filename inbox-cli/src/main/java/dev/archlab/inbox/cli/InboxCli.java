package dev.archlab.inbox.cli;

import dev.archlab.inbox.InvalidArgumentException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code inbox} command. Exit codes: 0 success; 1 a runtime failure (database unreachable,
 * login refused, schema missing, a verification that failed); 2 a usage error (unknown command or
 * option, a malformed value, a refused configuration). Errors are one line on stderr; {@code
 * --verbose} adds the stack trace.
 */
@Command(
    name = "inbox",
    mixinStandardHelpOptions = true,
    version = "inbox 0.1.0",
    description = {
      "Exactly-once effects from at-least-once delivery: demo, load simulation and operator"
          + " commands for the inbox dedup table.",
      ""
    },
    subcommands = {
      DemoCommand.class,
      SimulateCommand.class,
      StatusCommand.class,
      ListCommand.class,
      ShowCommand.class,
      ReleaseCommand.class,
      RetryDeadCommand.class,
      PruneCommand.class,
      UiCommand.class,
      MigrateCommand.class,
      OutboxCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Examples:",
      "  inbox demo",
      "  inbox simulate --messages 10000 --duplicates 3 --workers 8 --crash-rate 0.05",
      "  inbox --help status",
      "  inbox status --db jdbc:postgresql://db:5432/app --user app",
      "  inbox list --state DEAD --db redis://cache:6379",
      "  inbox outbox status",
      "  inbox ui --port 8080"
    })
public final class InboxCli implements Runnable {

  static final int OK = 0;
  static final int FAILURE = 1;
  static final int USAGE = 2;

  @Option(
      names = {"-v", "--verbose"},
      scope = CommandLine.ScopeType.INHERIT,
      description = "Print stack traces with errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "missing command (try: inbox demo, or inbox --help)");
  }

  public static void main(String[] args) {
    System.exit(
        execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /**
   * Runs the command line and returns its exit code; output goes to {@code out} and {@code err}.
   */
  static int execute(String[] args, PrintWriter out, PrintWriter err) {
    InboxCli root = new InboxCli();
    CommandLine cli = new CommandLine(root);
    cli.setOut(out);
    cli.setErr(err);
    cli.setExitCodeExceptionMapper(InboxCli::exitCodeOf);
    cli.setParameterExceptionHandler(
        (ex, arguments) -> {
          CommandLine cmd = ex.getCommandLine();
          // The message may quote the user's value, newlines and all: one line, like runtime
          // errors.
          err.println("inbox: " + oneLine(ex) + " (see '" + helpHint(cmd) + "')");
          if (root.verbose) {
            ex.printStackTrace(err);
          }
          return USAGE;
        });
    cli.setExecutionExceptionHandler(
        (ex, cmd, parseResult) -> {
          err.println("inbox: " + oneLine(ex));
          if (root.verbose) {
            ex.printStackTrace(err);
          }
          return exitCodeOf(ex);
        });
    return cli.execute(args);
  }

  static int exitCodeOf(Throwable t) {
    // Every refused value (ids, names, durations, configuration) is an InvalidArgumentException.
    if (t instanceof InvalidArgumentException || t instanceof CommandLine.ParameterException) {
      return USAGE;
    }
    return FAILURE;
  }

  private static String helpHint(CommandLine cmd) {
    String name = cmd.getCommandSpec().qualifiedName();
    return name + " --help";
  }

  /** The message of a failure, on one line, with its root cause when that says more. */
  static String oneLine(Throwable t) {
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return message.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
