package dev.archlab.inbox.ui;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What the page's data endpoints and actions do on the store, as JSON-ready maps; {@link
 * OperatorUi} has already checked access, method, read-only mode and the CSRF token.
 */
final class UiEndpoints {

  private final InboxOperations ops;
  private final UiSettings settings;
  private final Optional<OutcomeCounts> outcomes;

  UiEndpoints(InboxOperations ops, UiSettings settings, Optional<OutcomeCounts> outcomes) {
    this.ops = ops;
    this.settings = settings;
    this.outcomes = outcomes;
  }

  /**
   * The running outcome totals per consumer, sorted by name so that the page's legend and colours
   * stay put between refreshes; {@code available:false} without a source.
   */
  Map<String, Object> outcomes() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("available", outcomes.isPresent());
    if (outcomes.isPresent()) {
      Map<String, Object> consumers = new TreeMap<>();
      outcomes
          .get()
          .totals()
          .forEach((consumer, counts) -> consumers.put(consumer, new TreeMap<>(counts)));
      body.put("consumers", consumers);
    }
    return body;
  }

  Map<String, Object> overview() {
    Instant now = ops.currentTime();
    Duration retention = settings.dedupWindow().retention();
    List<Object> consumers = new ArrayList<>();
    for (ConsumerOverview o : ops.stats(retention)) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("consumer", o.consumer());
      row.put("processing", o.processing());
      row.put("done", o.done());
      row.put("dead", o.dead());
      row.put("stuck", o.expiredLeases());
      row.put("oldestProcessingMillis", o.oldestProcessingAge().toMillis());
      row.put("pastRetention", o.pastRetention());
      consumers.add(row);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("location", ops.location());
    body.put("now", now.toString());
    body.put("readOnly", settings.readOnly());
    body.put("retention", UiSettings.format(retention));
    body.put("consumers", consumers);
    return body;
  }

  Map<String, Object> records(Params query) {
    var state = query.state();
    String consumer = query.consumer(false);
    int limit = query.limit();
    Instant now = ops.currentTime();
    List<Object> out = new ArrayList<>();
    for (InboxRecord r : ops.list(state, consumer, limit)) {
      out.add(view(r, now));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("state", state.name());
    body.put("records", out);
    return body;
  }

  /** One id, for one consumer or searched among every consumer with records. */
  Map<String, Object> find(Params query) {
    String id = query.messageId();
    String consumer = query.consumer(false);
    List<String> consumers = new ArrayList<>();
    if (consumer != null) {
      consumers.add(consumer);
    } else {
      for (ConsumerOverview o : ops.stats(settings.dedupWindow().retention())) {
        consumers.add(o.consumer());
      }
    }
    Instant now = ops.currentTime();
    List<Object> found = new ArrayList<>();
    for (String c : consumers) {
      ops.find(c, id).ifPresent(r -> found.add(view(r, now)));
    }
    if (found.isEmpty()) {
      throw new UiRequestException(
          404,
          "no record with message id '"
              + id
              + "'"
              + (consumer != null ? " for consumer '" + consumer + "'" : " for any consumer"));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("records", found);
    return body;
  }

  Map<String, Object> prunePreview(Params query) {
    Duration olderThan = olderThan(query);
    String consumer = query.consumer(false);
    Instant before = ops.currentTime().minus(olderThan);
    long count = ops.countPrunable(consumer, before);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("consumer", consumer);
    body.put("olderThan", UiSettings.format(olderThan));
    body.put("before", before.toString());
    body.put("count", count);
    body.put(
        "message",
        "would delete "
            + count
            + " DONE record(s)"
            + (consumer == null ? "" : " of " + consumer)
            + " not updated since "
            + before);
    return body;
  }

  /** A prune window must outlast the redelivery window, as the command's prune insists. */
  private Duration olderThan(Params query) {
    Duration olderThan = query.duration("olderThan", settings.dedupWindow().retention());
    DedupWindow.of(olderThan, settings.dedupWindow().redeliveryWindow());
    return olderThan;
  }

  /** Carries out one store action (release, retry-dead, prune) and logs it with its result. */
  Map<String, Object> act(UiRequest request, String who) {
    return act(
        request,
        who,
        form ->
            switch (request.path()) {
              case "/api/release" -> release(form);
              case "/api/retry-dead" -> retryDead(form);
              default -> prune(form);
            });
  }

  /**
   * Carries out {@code action} on the request's form and logs it with its result, or with its
   * failure; refusals are logged by the caller.
   */
  Map<String, Object> act(UiRequest request, String who, Function<Params, String> action) {
    Params form = new Params(request.form());
    String message;
    try {
      message = action.apply(form);
    } catch (RuntimeException e) {
      settings
          .actionLog()
          .accept(
              OperatorUi.logLine(
                  who, request, describe(request, form) + " failed: " + e.getMessage()));
      throw e;
    }
    settings.actionLog().accept(OperatorUi.logLine(who, request, message));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("message", message);
    return body;
  }

  /** What a failed action was asked to act on; the outbox's action names no consumer. */
  private static String describe(UiRequest request, Params form) {
    String consumer = form.optional("consumer");
    return (consumer == null && request.path().startsWith("/api/outbox/")
            ? ""
            : "consumer=" + consumer + " ")
        + "id="
        + request.form().get("id");
  }

  private String release(Params form) {
    String consumer = form.consumer(true);
    String id = form.messageId();
    Optional<InboxRecord> released = ops.release(consumer, id);
    if (released.isEmpty()) {
      throw new UiRequestException(
          404,
          "no PROCESSING record for consumer '"
              + consumer
              + "' and id '"
              + id
              + "', nothing changed");
    }
    return "released "
        + consumer
        + "/"
        + id
        + " (attempt "
        + released.get().attempts()
        + "): the next delivery takes it over";
  }

  private String retryDead(Params form) {
    String consumer = form.consumer(true);
    if (form.optional("id") == null) {
      long count = ops.retryDead(consumer, List.of());
      return count + " DEAD record(s) of " + consumer + " are retryable again";
    }
    String id = form.messageId();
    if (ops.retryDead(consumer, List.of(id)) == 0) {
      throw new UiRequestException(
          404,
          "no DEAD record for consumer '" + consumer + "' and id '" + id + "', nothing changed");
    }
    return "DEAD record "
        + consumer
        + "/"
        + id
        + " is retryable again (its next delivery starts at"
        + " attempt 1)";
  }

  private String prune(Params form) {
    Duration olderThan = olderThan(form);
    String consumer = form.consumer(false);
    Instant before = ops.currentTime().minus(olderThan);
    long deleted = ops.prune(consumer, before, total -> {});
    return "deleted "
        + deleted
        + " DONE record(s)"
        + (consumer == null ? "" : " of " + consumer)
        + " not updated since "
        + before;
  }

  private static Map<String, Object> view(InboxRecord r, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", r.consumer());
    m.put("messageId", r.messageId());
    m.put("state", r.state().name());
    m.put("attempts", r.attempts());
    m.put("leaseUntil", r.leaseUntil() == null ? null : r.leaseUntil().toString());
    m.put(
        "leaseLeftMillis",
        r.leaseUntil() == null ? null : Duration.between(now, r.leaseUntil()).toMillis());
    m.put("ageMillis", Duration.between(r.createdAt(), now).toMillis());
    m.put("createdAt", r.createdAt().toString());
    m.put("updatedAt", r.updatedAt().toString());
    m.put("lastError", r.lastError());
    return m;
  }
}
