package dev.archlab.inbox.ui;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator page's outbox panel over one transactional outbox (module {@code inbox-outbox}), for
 * {@link OperatorUi#withOutbox}: the outbox's rows per state and the age of its oldest PENDING row
 * ({@code GET /api/outbox}), its rows of one state in the order the relay publishes them ({@code
 * GET /api/outbox/rows?state=…&limit=…}), and DEAD rows put back to PENDING ({@code POST
 * /api/outbox/retry-dead}, one {@code id} or, without one, the first 1000 DEAD rows). Times are the
 * database's. Immutable and thread-safe.
 *
 * <p>The only class of this module that names an outbox type: {@code inbox-outbox} is an optional
 * dependency, so an application without it can load, reflect on and run {@link OperatorUi}, which
 * runs no code of this class, and so loads nothing of {@code inbox-outbox}, unless given a panel.
 */
public final class OutboxPanel {

  /** The most DEAD rows one "retry all" puts back; the operator repeats it for more. */
  static final int RETRY_ALL_LIMIT = Params.MAX_LIMIT;

  private final OutboxAdmin admin;
  private final String table;

  private OutboxPanel(Outbox outbox) {
    this.admin = outbox.admin();
    this.table = outbox.table().value();
  }

  /**
   * The panel of {@code outbox}, read through {@link Outbox#admin()} on the outbox's data source.
   *
   * @param outbox the outbox to show
   * @return its panel
   * @throws NullPointerException if {@code outbox} is null
   */
  public static OutboxPanel of(Outbox outbox) {
    return new OutboxPanel(Objects.requireNonNull(outbox, "outbox"));
  }

  /** The rows per state and the age of the oldest PENDING row ({@code null} when none waits). */
  Map<String, Object> status() {
    OutboxAdmin.Counts counts = admin.counts();
    Optional<Duration> oldest = admin.oldestPendingAge();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("available", true);
    body.put("table", table);
    body.put("pending", counts.pending());
    body.put("sent", counts.sent());
    body.put("dead", counts.dead());
    body.put("oldestPendingMillis", oldest.map(Duration::toMillis).orElse(null));
    return body;
  }

  /** The first rows of one state, in the order the relay publishes them. */
  Map<String, Object> rows(Params query) {
    OutboxAdmin.State state = OutboxAdmin.State.parse(query.required("state"));
    int limit = query.limit();
    List<Object> rows = new ArrayList<>();
    for (OutboxAdmin.Entry e : admin.list(state, limit)) {
      rows.add(view(e));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("available", true);
    body.put("state", state.name());
    body.put("rows", rows);
    return body;
  }

  /**
   * Puts the DEAD row {@code id} back to PENDING, or without an id the first {@link
   * #RETRY_ALL_LIMIT} DEAD rows, each by its own conditional update, so a row that stopped being
   * DEAD meanwhile is left alone.
   */
  String retryDead(Params form) {
    if (form.optional("id") == null) {
      List<OutboxAdmin.Entry> dead = admin.list(OutboxAdmin.State.DEAD, RETRY_ALL_LIMIT);
      int retried = 0;
      for (OutboxAdmin.Entry e : dead) {
        if (admin.retryDead(e.row().id())) {
          retried++;
        }
      }
      return retried
          + " DEAD outbox row(s) of "
          + table
          + " are PENDING again"
          + (dead.size() == RETRY_ALL_LIMIT
              ? " (the first " + RETRY_ALL_LIMIT + "; retry all again for the rest)"
              : "");
    }
    String id = form.messageId();
    if (!admin.retryDead(id)) {
      throw new UiRequestException(
          404, "no DEAD row with message id '" + id + "' in outbox " + table + ", nothing changed");
    }
    return "DEAD outbox row "
        + id
        + " is PENDING again: the relay publishes it before the later rows of its key";
  }

  private static Map<String, Object> view(OutboxAdmin.Entry e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("messageId", e.row().id());
    m.put("destination", e.row().destination());
    m.put("key", e.row().key());
    m.put("state", e.state().name());
    m.put("attempts", e.row().attempts());
    m.put("lastError", e.lastError());
    m.put("createdAt", string(e.createdAt()));
    m.put("sentAt", string(e.sentAt()));
    return m;
  }

  private static String string(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
