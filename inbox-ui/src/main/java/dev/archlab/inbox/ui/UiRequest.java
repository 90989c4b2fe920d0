package dev.archlab.inbox.ui;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One HTTP request as the operator page sees it, whatever server received it. Immutable.
 *
 * @param method the HTTP method, e.g. {@code GET}
 * @param path the path below where the page is mounted, starting with {@code /} (the page itself is
 *     {@code /})
 * @param query the query parameters (the first value of each)
 * @param form the form parameters of a POST body ({@code application/x-www-form-urlencoded}); empty
 *     for other requests
 * @param headers the request headers (the first value of each), looked up ignoring case
 * @param remote who sent it, for the action log (e.g. the client's address)
 */
public record UiRequest(
    String method,
    String path,
    Map<String, String> query,
    Map<String, String> form,
    Map<String, String> headers,
    String remote) {

  /**
   * Copies the maps, so the request stays immutable, and makes header names case-insensitive.
   *
   * @param method the HTTP method
   * @param path the path below the mount point
   * @param query the query parameters
   * @param form the form parameters
   * @param headers the request headers
   * @param remote who sent it
   * @throws NullPointerException if any argument is null
   */
  public UiRequest {
    method = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
    Objects.requireNonNull(path, "path");
    query = Map.copyOf(query);
    form = Map.copyOf(form);
    TreeMap<String, String> caseless = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    caseless.putAll(headers);
    headers = java.util.Collections.unmodifiableMap(caseless);
    Objects.requireNonNull(remote, "remote");
  }

  /**
   * One header.
   *
   * @param name the header name, in any case
   * @return its value; null when absent
   */
  public String header(String name) {
    return headers.get(name);
  }
}
