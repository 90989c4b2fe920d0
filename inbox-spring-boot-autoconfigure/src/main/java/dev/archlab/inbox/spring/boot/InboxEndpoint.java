package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.operator.ConsumerOverview;
import dev.archlab.inbox.operator.InboxOperations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code inbox}, for operators, on whichever store the application uses (JDBC
 * or Redis). Like every Actuator endpoint it is reachable over HTTP only when exposed ({@code
 * management.endpoints.web.exposure.include=inbox}).
 *
 * <ul>
 *   <li>{@code GET /actuator/inbox}: the status table, one row per consumer;
 *   <li>{@code GET /actuator/inbox/{state}?consumer=…&limit=…}: records in PROCESSING, DONE or DEAD
 *       (at most {@code limit}, default 100);
 *   <li>{@code POST /actuator/inbox/{consumer}/release} with {@code {"messageIds":"a,b"}}: ends
 *       those PROCESSING leases now, so another instance may take the messages over;
 *   <li>{@code POST /actuator/inbox/{consumer}/retry-dead} with {@code {"messageIds":"a,b"}}
 *       (absent for all): forgets those DEAD records, so their next delivery starts afresh.
 * </ul>
 *
 * Bad input (an unknown state or action, a bad id) is answered with 400 and changes nothing. The
 * transactional outbox's rows have an endpoint of their own, {@code outbox} ({@link
 * OutboxEndpoint}).
 */
@Endpoint(id = "inbox")
public final class InboxEndpoint {

  private static final int DEFAULT_LIMIT = 100;

  private final InboxOperations operations;

  InboxEndpoint(InboxOperations operations) {
    this.operations = Objects.requireNonNull(operations, "operations");
  }

  /**
   * The status table.
   *
   * @return where the records are ({@code store}) and one row of counts per consumer
   */
  @ReadOperation
  public Map<String, Object> status() {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ConsumerOverview s : operations.stats(DedupWindow.DEFAULT.retention())) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("consumer", s.consumer());
      row.put("processing", s.processing());
      row.put("done", s.done());
      row.put("dead", s.dead());
      row.put("stuckLeases", s.expiredLeases());
      row.put("oldestProcessingAge", s.oldestProcessingAge().toString());
      row.put("pastRetention", s.pastRetention());
      rows.add(row);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("store", operations.location());
    body.put("consumers", rows);
    return body;
  }

  /**
   * Records in one state.
   *
   * @param state PROCESSING, DONE or DEAD (any case)
   * @param consumer only this consumer's records; all consumers if absent
   * @param limit at most this many records; 100 if absent
   * @return the records, without their kept results
   */
  @ReadOperation
  public List<Map<String, Object>> records(
      @Selector String state, @Nullable String consumer, @Nullable Integer limit) {
    RecordState parsed = parseState(state);
    int max = limit == null ? DEFAULT_LIMIT : limit;
    List<Map<String, Object>> out = new ArrayList<>();
    try {
      for (InboxRecord r : operations.list(parsed, consumer, max)) {
        out.add(view(r));
      }
    } catch (InvalidArgumentException e) {
      throw EndpointInput.badRequest(e.getMessage());
    }
    return out;
  }

  /**
   * An operator action on one consumer's records.
   *
   * @param consumer the consumer
   * @param action {@code release} (end PROCESSING leases) or {@code retry-dead} (forget DEAD
   *     records)
   * @param messageIds the ids, comma-separated (Actuator passes JSON body fields as strings); for
   *     {@code retry-dead}, absent or empty means every DEAD record
   * @return what was done
   */
  @WriteOperation
  public Map<String, Object> act(
      @Selector String consumer, @Selector String action, @Nullable String messageIds) {
    List<String> ids = EndpointInput.splitIds(messageIds);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("consumer", consumer);
    body.put("action", action);
    try {
      switch (action) {
        case "release" -> {
          if (ids.isEmpty()) {
            throw EndpointInput.badRequest("release needs messageIds");
          }
          List<String> released = new ArrayList<>();
          for (String id : ids) {
            operations.release(consumer, id).ifPresent(r -> released.add(r.messageId()));
          }
          body.put("released", released);
        }
        case "retry-dead" -> body.put("retried", operations.retryDead(consumer, ids));
        default ->
            throw EndpointInput.badRequest(
                "unknown action '" + action + "': use release or retry-dead");
      }
    } catch (InvalidArgumentException e) {
      throw EndpointInput.badRequest(e.getMessage());
    }
    return body;
  }

  private static RecordState parseState(String state) {
    try {
      return RecordState.valueOf(state.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw EndpointInput.badRequest("unknown state '" + state + "': use PROCESSING, DONE or DEAD");
    }
  }

  private static Map<String, Object> view(InboxRecord r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", r.consumer());
    m.put("messageId", r.messageId());
    m.put("state", r.state().name());
    m.put("attempts", r.attempts());
    m.put("leaseUntil", String.valueOf(r.leaseUntil()));
    m.put("createdAt", String.valueOf(r.createdAt()));
    m.put("updatedAt", String.valueOf(r.updatedAt()));
    m.put("lastError", r.lastError());
    return m;
  }
}
