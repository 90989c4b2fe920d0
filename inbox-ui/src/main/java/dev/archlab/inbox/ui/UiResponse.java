package dev.archlab.inbox.ui;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * The operator page's answer to one request, for the server that carries it to write out. Immutable
 * (the body is copied in and out).
 *
 * @param status the HTTP status code
 * @param contentType the {@code Content-Type} header value
 * @param headers further headers to send (security and cache headers, {@code WWW-Authenticate})
 * @param body the body bytes
 */
public record UiResponse(int status, String contentType, Map<String, String> headers, byte[] body) {

  /**
   * Copies the headers and the body.
   *
   * @param status the HTTP status code
   * @param contentType the content type
   * @param headers further headers
   * @param body the body bytes
   * @throws NullPointerException if an argument is null
   */
  public UiResponse {
    Objects.requireNonNull(contentType, "contentType");
    headers = Map.copyOf(headers);
    body = body.clone();
  }

  /**
   * The body bytes.
   *
   * @return a copy of the body
   */
  @Override
  public byte[] body() {
    return body.clone();
  }

  /**
   * The body as UTF-8 text, for tests and logs.
   *
   * @return the body decoded as UTF-8
   */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof UiResponse r
        && status == r.status
        && contentType.equals(r.contentType)
        && headers.equals(r.headers)
        && java.util.Arrays.equals(body, r.body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, contentType, headers, java.util.Arrays.hashCode(body));
  }

  @Override
  public String toString() {
    return status + " " + contentType + " " + bodyText();
  }
}
