package dev.archlab.inbox.ui;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@link OperatorUi} served by the JDK's own HTTP server ({@code com.sun.net.httpserver}): no
 * dependency, enough for a page a few operators look at. Started by {@link #start}; {@link #close}
 * stops it, waiting at most a second for requests in progress.
 */
public final class OperatorUiServer implements AutoCloseable {

  /** Largest POST body read; the page's forms are a few hundred bytes. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  private final HttpServer server;
  private final ExecutorService executor;

  private OperatorUiServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Starts serving {@code ui} at {@code address}.
   *
   * @param ui the handler
   * @param address where to listen; port 0 picks a free port ({@link #uri()} tells which)
   * @return the running server
   * @throws IOException if the address cannot be bound (e.g. the port is taken)
   */
  public static OperatorUiServer start(OperatorUi ui, InetSocketAddress address)
      throws IOException {
    Objects.requireNonNull(ui, "ui");
    HttpServer server = HttpServer.create(address, 16);
    // A few threads: a page that a few operators poll, over a store pool of a few connections.
    ExecutorService executor =
        Executors.newFixedThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "inbox-ui-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", exchange -> serve(ui, exchange));
    server.start();
    return new OperatorUiServer(server, executor);
  }

  /**
   * Where the page is.
   *
   * @return e.g. {@code http://127.0.0.1:8080/}
   */
  public URI uri() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + a.getPort() + "/");
  }

  /** Stops listening and waits at most a second for requests in progress. */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdown();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void serve(OperatorUi ui, HttpExchange exchange) throws IOException {
    try (exchange) {
      UiResponse response;
      byte[] body = readBody(exchange);
      if (body == null) {
        response = plainError(413, "request body larger than " + MAX_BODY_BYTES + " bytes");
      } else {
        UiRequest request;
        try {
          request = request(exchange, body);
        } catch (IllegalArgumentException malformed) {
          request = null;
        }
        response =
            request == null
                ? plainError(400, "malformed URL encoding in the query or the form")
                : ui.handle(request);
      }
      response.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
      exchange.getResponseHeaders().set("Content-Type", response.contentType());
      byte[] bytes = response.body();
      exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  private static UiResponse plainError(int status, String message) {
    return new UiResponse(
        status,
        "application/json; charset=utf-8",
        Map.of(),
        Json.write(Map.of("error", message)).getBytes(StandardCharsets.UTF_8));
  }

  /** The body, or null when it is larger than {@link #MAX_BODY_BYTES}. */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }

  private static UiRequest request(HttpExchange exchange, byte[] body) {
    Map<String, String> headers = new LinkedHashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k, v.isEmpty() ? "" : v.get(0)));
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    Map<String, String> form =
        contentType != null
                && contentType
                    .toLowerCase(java.util.Locale.ROOT)
                    .startsWith("application/x-www-form-urlencoded")
            ? decode(new String(body, StandardCharsets.UTF_8))
            : Map.of();
    URI uri = exchange.getRequestURI();
    return new UiRequest(
        exchange.getRequestMethod(),
        uri.getPath(),
        decode(uri.getRawQuery()),
        form,
        headers,
        exchange.getRemoteAddress().getAddress().getHostAddress());
  }

  /**
   * Decodes {@code a=1&b=2}, keeping the first value of a repeated name.
   *
   * @param encoded the URL-encoded text; null for none
   * @return the parameters
   */
  static Map<String, String> decode(String encoded) {
    Map<String, String> out = new LinkedHashMap<>();
    if (encoded == null || encoded.isEmpty()) {
      return out;
    }
    for (String pair : List.of(encoded.split("&"))) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name =
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.putIfAbsent(name, value);
    }
    return out;
  }
}
