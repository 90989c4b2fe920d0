package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.ui.OperatorUi;
import dev.archlab.inbox.ui.UiRequest;
import dev.archlab.inbox.ui.UiResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Carries the operator page ({@link OperatorUi}) on a servlet container: the request becomes a
 * {@link UiRequest} relative to where the servlet is mapped, the {@link UiResponse} is written
 * back. Every rule (CSRF, read-only, token, log) is the handler's, as under {@code inbox ui}.
 */
final class InboxUiServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;

  private final transient OperatorUi ui;

  InboxUiServlet(OperatorUi ui) {
    this.ui = ui;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = request.getPathInfo();
    if (path == null) {
      // The page links its script and data relatively: it must be served with a trailing slash.
      response.sendRedirect(request.getRequestURI() + "/");
      return;
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : Collections.list(request.getHeaderNames())) {
      headers.put(name, request.getHeader(name));
    }
    UiRequest uiRequest;
    try {
      uiRequest =
          new UiRequest(
              request.getMethod(),
              path,
              decode(request.getQueryString()),
              form(request),
              headers,
              request.getRemoteAddr());
    } catch (IllegalArgumentException malformed) {
      response.sendError(400, "malformed URL encoding in the query or the form");
      return;
    }
    UiResponse answer = ui.handle(uiRequest);
    response.setStatus(answer.status());
    answer.headers().forEach(response::setHeader);
    response.setContentType(answer.contentType());
    byte[] body = answer.body();
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** The form fields of a POST form; the query's are kept apart, as the handler expects. */
  private static Map<String, String> form(HttpServletRequest request) throws IOException {
    String type = request.getContentType();
    if (!"POST".equalsIgnoreCase(request.getMethod())
        || type == null
        || !type.toLowerCase(java.util.Locale.ROOT)
            .startsWith("application/x-www-form-urlencoded")) {
      return Map.of();
    }
    byte[] body = request.getInputStream().readNBytes(64 * 1024);
    return decode(new String(body, StandardCharsets.UTF_8));
  }

  private static Map<String, String> decode(String encoded) {
    Map<String, String> out = new LinkedHashMap<>();
    if (encoded == null || encoded.isEmpty()) {
      return out;
    }
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      out.putIfAbsent(
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }
}
