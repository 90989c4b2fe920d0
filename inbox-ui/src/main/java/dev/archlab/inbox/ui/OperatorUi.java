package dev.archlab.inbox.ui;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.operator.InboxOperations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator page as one request handler: {@link #handle} turns a {@link UiRequest} into a {@link
 * UiResponse}, so the JDK's HTTP server ({@link OperatorUiServer}) and a servlet serve the same
 * routes with the same rules. Thread-safe: it keeps no state between requests.
 *
 * <p>Routes, relative to where the page is mounted: {@code GET /} the page, {@code GET /app.js} and
 * {@code /app.css} its script and style, {@code GET /api/overview}, {@code /api/records?state=…},
 * {@code /api/find?id=…}, {@code /api/prune-preview?olderThan=…}, {@code /api/outcomes}, {@code
 * /api/outbox} and {@code /api/outbox/rows?state=…&limit=…} (JSON), and the actions {@code POST
 * /api/release}, {@code /api/retry-dead}, {@code /api/prune} and {@code /api/outbox/retry-dead}.
 * {@code /api/outcomes} answers {@code {"available":false}} unless the handler was given an {@link
 * OutcomeCounts} source; the {@code /api/outbox} routes answer {@code {"available":false}} (and its
 * action 404) unless it was given an {@link OutboxPanel} ({@link #withOutbox}), and the page then
 * hides its outbox panel.
 *
 * <p>Guarantees: with an access token set, every request without it is answered 401 before anything
 * is read. An action is carried out only on a POST that carries this instance's CSRF token (form
 * field {@code csrf} or header {@code X-Inbox-Csrf}, compared in constant time) on an instance that
 * is not read-only; otherwise it is answered 403 with the reason and the store is not touched.
 * Every action, refused or carried out, is logged as one line. Bad parameters are answered 400,
 * unknown records and routes 404, an unreachable store 503, each with a JSON {@code {"error": …}}
 * that says what was wrong.
 */
public final class OperatorUi {

  static final String CSRF_FIELD = "csrf";
  static final String CSRF_HEADER = "X-Inbox-Csrf";

  private static final String JSON = "application/json; charset=utf-8";

  /** What the outbox routes answer on a handler without an outbox. */
  private static final Map<String, Object> NO_OUTBOX = Map.of("available", false);

  /**
   * Sent with every answer: nothing is cached, framed or sniffed, and the page runs only its own
   * script (no inline script, so an injected one would not run).
   */
  private static final Map<String, String> SAFETY_HEADERS =
      Map.of(
          "Cache-Control", "no-store",
          "X-Content-Type-Options", "nosniff",
          "X-Frame-Options", "DENY",
          "Referrer-Policy", "no-referrer",
          "Content-Security-Policy",
              "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'");

  private final UiSettings settings;
  private final UiEndpoints endpoints;
  // Null without an outbox: then no code path reaches OutboxPanel, nor loads inbox-outbox.
  private final OutboxPanel outbox;
  private final String page;
  private final byte[] script;
  private final byte[] style;

  /**
   * A handler over {@code operations} without an outcome source: the page charts the state counts
   * it samples itself.
   *
   * @param operations the store's operations
   * @param settings the safety settings and the dedup window
   * @throws NullPointerException if an argument is null
   */
  public OperatorUi(InboxOperations operations, UiSettings settings) {
    this(operations, settings, Optional.empty());
  }

  /**
   * A handler over {@code operations} whose page charts delivery outcomes over time from {@code
   * outcomes} when one is given.
   *
   * @param operations the store's operations
   * @param settings the safety settings and the dedup window
   * @param outcomes the cumulative outcome counts; empty to chart state counts instead
   * @throws NullPointerException if an argument is null
   */
  public OperatorUi(
      InboxOperations operations, UiSettings settings, Optional<OutcomeCounts> outcomes) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.endpoints =
        new UiEndpoints(
            Objects.requireNonNull(operations, "operations"),
            settings,
            Objects.requireNonNull(outcomes, "outcomes"));
    this.page =
        new String(resource("index.html"), StandardCharsets.UTF_8)
            .replace("{{csrf}}", settings.csrfToken())
            .replace("{{readOnly}}", String.valueOf(settings.readOnly()))
            .replace("{{retention}}", UiSettings.format(settings.dedupWindow().retention()));
    this.script = resource("app.js");
    this.style = resource("app.css");
    this.outbox = null;
  }

  private OperatorUi(OperatorUi base, OutboxPanel outbox) {
    this.settings = base.settings;
    this.endpoints = base.endpoints;
    this.page = base.page;
    this.script = base.script;
    this.style = base.style;
    this.outbox = outbox;
  }

  /**
   * A handler like this one (the same store, outcome source and settings, so the same CSRF token)
   * whose page also shows an outbox panel: the outbox's rows per state, the age of its oldest
   * PENDING row, its DEAD and next PENDING rows, and an action that puts DEAD rows back to PENDING,
   * under the same access, read-only and CSRF rules and the same action log as every action. This
   * handler is left as it is.
   *
   * @param outbox the panel, {@code OutboxPanel.of(outbox)}
   * @return a new handler with the outbox panel
   * @throws NullPointerException if {@code outbox} is null
   */
  public OperatorUi withOutbox(OutboxPanel outbox) {
    return new OperatorUi(this, Objects.requireNonNull(outbox, "outbox"));
  }

  /**
   * The settings this handler enforces.
   *
   * @return the settings
   */
  public UiSettings settings() {
    return settings;
  }

  /**
   * Answers one request. Never throws for a bad request or a failing store: those are answered with
   * their status and message.
   *
   * @param request the request
   * @return the response to send
   */
  public UiResponse handle(UiRequest request) {
    if (!hostAllowed(request.header("Host"))) {
      return json(
          421,
          error(
              "this page answers only to "
                  + String.join(", ", settings.allowedHosts())
                  + ", not to Host '"
                  + request.header("Host")
                  + "' (a guard against DNS rebinding): open it by one of those names"));
    }
    if (!authorized(request)) {
      Map<String, String> headers = new LinkedHashMap<>(SAFETY_HEADERS);
      headers.put("WWW-Authenticate", "Basic realm=\"inbox ui\", charset=\"UTF-8\"");
      return new UiResponse(
          401,
          JSON,
          headers,
          bytes(
              Json.write(
                  error(
                      "this page needs the access token: send it as a bearer token or as the"
                          + " basic-auth password"))));
    }
    try {
      return route(request);
    } catch (UiRequestException e) {
      return json(e.status(), error(e.getMessage()));
    } catch (InvalidArgumentException e) {
      return json(400, error(e.getMessage()));
    } catch (StoreUnavailableException e) {
      return json(503, error("the store is unavailable: " + e.getMessage()));
    } catch (RuntimeException e) {
      return json(500, error(e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  private UiResponse route(UiRequest request) {
    String path = request.path();
    if (request.method().equals("POST")) {
      if (path.equals("/api/outbox/retry-dead")) {
        return json(200, endpoints.act(request, checkAction(request), this::retryOutboxDead));
      }
      if (!path.equals("/api/release")
          && !path.equals("/api/retry-dead")
          && !path.equals("/api/prune")) {
        throw notFoundOrWrongMethod(path);
      }
      return json(200, endpoints.act(request, checkAction(request)));
    }
    if (!request.method().equals("GET")) {
      throw new UiRequestException(405, "method " + request.method() + " is not allowed");
    }
    Params query = new Params(request.query());
    return switch (path) {
      case "/", "/index.html" -> respond(200, "text/html; charset=utf-8", bytes(page));
      case "/app.js" -> respond(200, "text/javascript; charset=utf-8", script);
      case "/app.css" -> respond(200, "text/css; charset=utf-8", style);
      case "/api/overview" -> json(200, endpoints.overview());
      case "/api/records" -> json(200, endpoints.records(query));
      case "/api/find" -> json(200, endpoints.find(query));
      case "/api/prune-preview" -> json(200, endpoints.prunePreview(query));
      case "/api/outcomes" -> json(200, endpoints.outcomes());
      case "/api/outbox" -> json(200, outbox == null ? NO_OUTBOX : outbox.status());
      case "/api/outbox/rows" -> json(200, outbox == null ? NO_OUTBOX : outbox.rows(query));
      case "/api/release", "/api/retry-dead", "/api/prune", "/api/outbox/retry-dead" ->
          throw new UiRequestException(405, path + " is an action: use POST");
      default -> throw notFoundOrWrongMethod(path);
    };
  }

  private String retryOutboxDead(Params form) {
    if (outbox == null) {
      throw new UiRequestException(
          404, "this page was given no outbox: there are no outbox rows to retry, nothing changed");
    }
    return outbox.retryDead(form);
  }

  private static UiRequestException notFoundOrWrongMethod(String path) {
    return new UiRequestException(404, "no such page or action: " + path);
  }

  /**
   * Refuses an action on a read-only instance or without this instance's CSRF token, logging the
   * refusal; returns who asked, for the log.
   */
  private String checkAction(UiRequest request) {
    String who = who(request);
    if (settings.readOnly()) {
      settings.actionLog().accept(logLine(who, request, "refused: read-only"));
      throw new UiRequestException(
          403, "this inbox ui is read-only (--read-only): actions are disabled, nothing changed");
    }
    String token = request.form().get(CSRF_FIELD);
    if (token == null) {
      token = request.header(CSRF_HEADER);
    }
    if (token == null || !constantTimeEquals(token, settings.csrfToken())) {
      settings.actionLog().accept(logLine(who, request, "refused: missing or wrong CSRF token"));
      throw new UiRequestException(
          403,
          "missing or wrong CSRF token: actions must come from this server's own page (reload it),"
              + " nothing changed");
    }
    return who;
  }

  static String logLine(String who, UiRequest request, String result) {
    return "inbox ui: " + who + " " + request.method() + " " + request.path() + " " + result;
  }

  private boolean hostAllowed(String host) {
    if (settings.allowedHosts().isEmpty()) {
      return true;
    }
    if (host == null) {
      return false;
    }
    String name = host.strip().toLowerCase(java.util.Locale.ROOT);
    // Strip the port: "[::1]:8080" -> "[::1]", "localhost:8080" -> "localhost".
    int colon = name.lastIndexOf(':');
    if (colon > name.lastIndexOf(']')) {
      name = name.substring(0, colon);
    }
    return settings.allowedHosts().contains(name);
  }

  private boolean authorized(UiRequest request) {
    String expected = settings.accessToken();
    if (expected == null) {
      return true;
    }
    String given = presentedToken(request.header("Authorization"));
    return given != null && constantTimeEquals(given, expected);
  }

  /** The bearer token, or the password of basic auth (any user name); null for neither. */
  private static String presentedToken(String authorization) {
    if (authorization == null) {
      return null;
    }
    String value = authorization.strip();
    if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return value.substring(7).strip();
    }
    if (value.regionMatches(true, 0, "Basic ", 0, 6)) {
      try {
        String decoded =
            new String(
                Base64.getDecoder().decode(value.substring(6).strip()), StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        return colon < 0 ? null : decoded.substring(colon + 1);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }

  /** Who sent an action: the address, and the basic-auth user name when one was given. */
  private static String who(UiRequest request) {
    String authorization = request.header("Authorization");
    if (authorization != null && authorization.strip().regionMatches(true, 0, "Basic ", 0, 6)) {
      try {
        String decoded =
            new String(
                Base64.getDecoder().decode(authorization.strip().substring(6).strip()),
                StandardCharsets.UTF_8);
        int colon = decoded.indexOf(':');
        if (colon > 0) {
          return decoded.substring(0, colon) + "@" + request.remote();
        }
      } catch (IllegalArgumentException e) {
        // Not basic auth after all: the address alone names the sender.
      }
    }
    return request.remote();
  }

  private static boolean constantTimeEquals(String given, String expected) {
    // MessageDigest.isEqual does not stop at the first differing byte.
    return MessageDigest.isEqual(bytes(given), bytes(expected));
  }

  private static UiResponse json(int status, Object body) {
    return respond(status, JSON, bytes(Json.write(body)));
  }

  private static UiResponse respond(int status, String type, byte[] body) {
    return new UiResponse(status, type, SAFETY_HEADERS, body);
  }

  private static Map<String, Object> error(String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return body;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] resource(String name) {
    try (InputStream in = OperatorUi.class.getResourceAsStream("static/" + name)) {
      if (in == null) {
        throw new IllegalStateException("resource static/" + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
