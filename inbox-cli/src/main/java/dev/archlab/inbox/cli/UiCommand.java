package dev.archlab.inbox.cli;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.jdbc.TableName;
import dev.archlab.inbox.jdbc.dialect.JdbcDialect;
import dev.archlab.inbox.jdbc.schema.SchemaMissingException;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.ui.OperatorUi;
import dev.archlab.inbox.ui.OperatorUiServer;
import dev.archlab.inbox.ui.OutboxPanel;
import dev.archlab.inbox.ui.UiSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Serves the operator web page on the store until stopped. */
@Command(
    name = "ui",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the operator page: per consumer counts, stuck leases, DEAD and prunable records,"
          + " refreshed live; release, retry-dead and prune (with a preview), each confirmed. With"
          + " an outbox table in the same database, its backlog and DEAD rows, and retry-dead."
          + " Actions are POSTs with a per-server CSRF token and are logged on stderr. Binds to"
          + " 127.0.0.1 unless told otherwise. Prints the URL, then runs until Ctrl-C."
    },
    footer = {
      "",
      "Examples:",
      "  inbox ui",
      "  inbox ui --port 9090 --read-only --db jdbc:postgresql://db:5432/app --user app",
      "  inbox ui --db jdbc:postgresql://db:5432/app --user app --outbox-table orders_outbox",
      "  INBOX_UI_TOKEN=... inbox ui --bind 0.0.0.0 --db redis://cache:6379"
    })
final class UiCommand implements Callable<Integer> {

  static final String ENV_TOKEN = "INBOX_UI_TOKEN";

  @Mixin DbOptions db;

  @Option(
      names = "--port",
      defaultValue = "8080",
      description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--bind",
      defaultValue = "127.0.0.1",
      description =
          "Address to listen on (default: ${DEFAULT-VALUE}, this machine only). Anything else"
              + " should sit behind a proxy and use a token.")
  String bind;

  @Option(names = "--read-only", description = "Show everything, refuse every action.")
  boolean readOnly;

  @Option(
      names = "--token",
      description =
          "Require this access token (bearer, or the basic-auth password with any user name)."
              + " Visible to other users in the process list: prefer --token-file or the"
              + " environment variable "
              + ENV_TOKEN
              + ".")
  String token;

  @Option(names = "--token-file", description = "Read the access token from this file.")
  Path tokenFile;

  @Option(
      names = "--retention",
      defaultValue = "7d",
      converter = Durations.class,
      description = "Dedup retention, for 'past retention' and the prune default (default: 7d).")
  Duration retention;

  @Option(
      names = "--redelivery-window",
      defaultValue = "1d",
      converter = Durations.class,
      description = "The broker's longest redelivery window; a prune keeps more (default: 1d).")
  Duration redeliveryWindow;

  @Option(
      names = "--outbox-table",
      paramLabel = "TABLE",
      description =
          "The transactional outbox table the page's Outbox panel shows (default: "
              + Outbox.DEFAULT_TABLE
              + ", shown when it exists in the database). A table named here must exist.")
  String outboxTable;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    if (port < 0 || port > 65_535) {
      throw new ParameterException(spec.commandLine(), "--port must be 0 to 65535, was " + port);
    }
    if (outboxTable != null) {
      // Usage errors before any database is opened.
      TableName.of(outboxTable);
      if (db.isRedis()) {
        throw new ParameterException(
            spec.commandLine(),
            "--outbox-table needs a JDBC database: the outbox is a table, and --db names Redis");
      }
    }
    InetSocketAddress address = new InetSocketAddress(bindAddress(), port);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    UiSettings settings =
        UiSettings.custom()
            .readOnly(readOnly)
            .accessToken(accessToken())
            .dedupWindow(DedupWindow.of(retention, redeliveryWindow))
            .allowedHosts(allowedHosts(address.getAddress()))
            .actionLog(
                line -> {
                  err.println(line);
                  err.flush();
                })
            .build();
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    // Ctrl-C runs the hook: it asks this thread to stop and lets the JVM halt only once the
    // server and the store are closed (or after a backstop, should closing hang).
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              try {
                closed.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "inbox-ui-stop");
    try {
      try (OperatorStore opened = db.openOperatorStore()) {
        serve(opened, outboxPanel(opened), settings, address, hook, stop);
      }
      out.println("inbox ui: stopped");
      out.flush();
      return InboxCli.OK;
    } finally {
      closed.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook runs now, and returns since closed is counted down.
      }
    }
  }

  /** Serves the page until {@code stop} is counted down or this thread is interrupted. */
  private void serve(
      OperatorStore opened,
      Optional<Outbox> outbox,
      UiSettings settings,
      InetSocketAddress address,
      Thread hook,
      CountDownLatch stop)
      throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    OperatorUi ui = new OperatorUi(opened.operations(), settings);
    if (outbox.isPresent()) {
      ui = ui.withOutbox(OutboxPanel.of(outbox.get()));
    }
    try (OperatorUiServer server = start(ui, address)) {
      if (!address.getAddress().isLoopbackAddress() && settings.accessToken() == null) {
        err.println(
            "inbox: warning: serving on "
                + bind
                + " without a token: anyone who reaches this address can act on the records");
      }
      Runtime.getRuntime().addShutdownHook(hook);
      out.println(
          "inbox ui: serving "
              + server.uri()
              + " on "
              + opened.operations().location()
              + outbox.map(o -> " and outbox " + o.table()).orElse("")
              + (readOnly ? " (read-only)" : "")
              + "; Ctrl-C stops it");
      out.flush();
      try {
        stop.await();
      } catch (InterruptedException e) {
        // Stopped by the caller: the tests run the command on a thread and interrupt it.
      }
    }
  }

  private OperatorUiServer start(OperatorUi ui, InetSocketAddress address) throws IOException {
    try {
      return OperatorUiServer.start(ui, address);
    } catch (IOException e) {
      throw new IOException("cannot listen on " + bind + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /**
   * The outbox the page shows: the table {@code --outbox-table} names, which must exist, or else
   * the default table when it exists in the store's database; none on Redis.
   *
   * @throws SchemaMissingException when the table {@code --outbox-table} names does not exist
   */
  private Optional<Outbox> outboxPanel(OperatorStore store) {
    Optional<DataSource> dataSource = store.dataSource();
    if (dataSource.isEmpty()) {
      return Optional.empty(); // Redis: call() refused --outbox-table already
    }
    Outbox outbox =
        Outbox.builder(dataSource.get())
            .table(outboxTable == null ? Outbox.DEFAULT_TABLE : outboxTable)
            .build();
    if (tableExists(dataSource.get(), outbox.table())) {
      return Optional.of(outbox);
    }
    if (outboxTable != null) {
      throw new SchemaMissingException(
          "outbox table '"
              + outbox.table()
              + "' does not exist in this database: name the outbox's table, or leave out"
              + " --outbox-table",
          null);
    }
    return Optional.empty();
  }

  private static boolean tableExists(DataSource dataSource, TableName table) {
    try (Connection c = dataSource.getConnection()) {
      return JdbcDialect.detect(c).tableExists(c, table.schemaName(), table.baseName());
    } catch (SQLException e) {
      throw new StoreUnavailableException(
          StoreUnavailableException.Reason.OTHER,
          "cannot look for the outbox table '" + table + "': " + InboxCli.oneLine(e),
          e);
    }
  }

  /**
   * On the loopback interface only the loopback names, so that another site rebinding its DNS name
   * to 127.0.0.1 cannot read the page; elsewhere any (the access token guards it there).
   */
  private static Set<String> allowedHosts(InetAddress bound) {
    if (!bound.isLoopbackAddress()) {
      return Set.of();
    }
    String literal = bound.getHostAddress();
    return new java.util.TreeSet<>(
        List.of(
            "localhost",
            "127.0.0.1",
            "[::1]",
            literal.contains(":") ? "[" + literal + "]" : literal));
  }

  private InetAddress bindAddress() {
    try {
      return InetAddress.getByName(bind.strip());
    } catch (UnknownHostException e) {
      throw new ParameterException(spec.commandLine(), "unknown --bind address '" + bind + "'");
    }
  }

  /** The token from --token, --token-file or the environment (first given wins); null for none. */
  private String accessToken() throws IOException {
    if (token != null && tokenFile != null) {
      throw new ParameterException(spec.commandLine(), "give --token or --token-file, not both");
    }
    if (token != null) {
      return token;
    }
    if (tokenFile != null) {
      try {
        return Files.readString(tokenFile).strip();
      } catch (IOException e) {
        throw new ParameterException(
            spec.commandLine(), "cannot read --token-file " + tokenFile + ": " + e.getMessage());
      }
    }
    String env = DbOptions.environment.get(ENV_TOKEN);
    return env == null || env.isBlank() ? null : env.strip();
  }
}
