package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.Identifiers;
import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.outbox.OutboxAdmin;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code outbox}, for operators of the transactional outbox ({@code
 * inbox.outbox.enabled=true}). Like every Actuator endpoint it is reachable over HTTP only when
 * exposed ({@code management.endpoints.web.exposure.include=outbox}). Times are the database's.
 *
 * <ul>
 *   <li>{@code GET /actuator/outbox}: the table, its rows per state (PENDING, SENT, DEAD) and how
 *       long the oldest PENDING row has waited;
 *   <li>{@code GET /actuator/outbox/{state}?limit=…}: the first rows of PENDING, SENT or DEAD, in
 *       the order the relay publishes them (at most {@code limit}, default 100, at most 10 000);
 *   <li>{@code POST /actuator/outbox/retry-dead} with {@code {"messageIds":"a,b"}}: puts those DEAD
 *       rows back to PENDING, due now, so the relay publishes them again, each before the later
 *       rows of its key; ids that name no DEAD row are reported and left alone.
 * </ul>
 *
 * Bad input (an unknown state or action, a bad limit or id, no ids) is answered with 400 and
 * changes nothing.
 */
@Endpoint(id = "outbox")
public final class OutboxEndpoint {

  private static final int DEFAULT_LIMIT = 100;

  private final Outbox outbox;

  OutboxEndpoint(Outbox outbox) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
  }

  /**
   * The backlog.
   *
   * @return the table, the rows per state and {@code oldestPendingAge} (an ISO-8601 duration, null
   *     when no row is pending)
   */
  @ReadOperation
  public Map<String, Object> status() {
    OutboxAdmin admin = outbox.admin();
    OutboxAdmin.Counts counts = admin.counts();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("table", outbox.table().value());
    body.put("pending", counts.pending());
    body.put("sent", counts.sent());
    body.put("dead", counts.dead());
    body.put("oldestPendingAge", admin.oldestPendingAge().map(Object::toString).orElse(null));
    return body;
  }

  /**
   * Rows in one state.
   *
   * @param state PENDING, SENT or DEAD (any case)
   * @param limit at most this many rows, 1 to 10 000; 100 if absent
   * @return the rows, without their payloads, in the order the relay publishes them
   */
  @ReadOperation
  public List<Map<String, Object>> rows(@Selector String state, @Nullable Integer limit) {
    OutboxAdmin.State parsed = parseState(state);
    List<Map<String, Object>> out = new ArrayList<>();
    try {
      for (OutboxAdmin.Entry e :
          outbox.admin().list(parsed, limit == null ? DEFAULT_LIMIT : limit)) {
        out.add(view(e));
      }
    } catch (InvalidArgumentException e) {
      throw EndpointInput.badRequest(e.getMessage());
    }
    return out;
  }

  /**
   * An operator action on DEAD rows.
   *
   * @param action {@code retry-dead}: put DEAD rows back to PENDING
   * @param messageIds the rows' message ids, comma-separated (Actuator passes JSON body fields as
   *     strings); required
   * @return the ids put back ({@code retried}) and those that named no DEAD row ({@code notDead})
   */
  @WriteOperation
  public Map<String, Object> act(@Selector String action, @Nullable String messageIds) {
    if (!action.equals("retry-dead")) {
      throw EndpointInput.badRequest("unknown action '" + action + "': use retry-dead");
    }
    List<String> ids = EndpointInput.splitIds(messageIds);
    if (ids.isEmpty()) {
      throw EndpointInput.badRequest(
          "retry-dead needs messageIds, the DEAD rows' ids comma-separated"
              + " (GET /actuator/outbox/dead lists them)");
    }
    try {
      ids.forEach(Identifiers::requireMessageId);
    } catch (InvalidArgumentException e) {
      throw EndpointInput.badRequest(e.getMessage());
    }
    List<String> retried = new ArrayList<>();
    List<String> notDead = new ArrayList<>();
    for (String id : ids) {
      (outbox.admin().retryDead(id) ? retried : notDead).add(id);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("action", action);
    body.put("retried", retried);
    body.put("notDead", notDead);
    return body;
  }

  private static OutboxAdmin.State parseState(String state) {
    try {
      return OutboxAdmin.State.parse(state);
    } catch (InvalidArgumentException e) {
      throw EndpointInput.badRequest(e.getMessage());
    }
  }

  private static Map<String, Object> view(OutboxAdmin.Entry e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("messageId", e.row().id());
    m.put("destination", e.row().destination());
    m.put("key", e.row().key());
    m.put("state", e.state().name());
    m.put("attempts", e.row().attempts());
    m.put("lastError", e.lastError());
    m.put("createdAt", String.valueOf(e.createdAt()));
    m.put("sentAt", e.sentAt() == null ? null : e.sentAt().toString());
    return m;
  }
}
