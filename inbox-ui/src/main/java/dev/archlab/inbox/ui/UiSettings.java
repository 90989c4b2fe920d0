package dev.archlab.inbox.ui;

import dev.archlab.inbox.DedupWindow;
import dev.archlab.inbox.InvalidConfigurationException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * How one operator page instance behaves. Immutable; built with {@link #custom()} or taken as
 * {@link #ofDefaults()}.
 *
 * <p>Defaults: actions allowed (not read-only); no access token (anyone who reaches the address may
 * use the page, which is why the command binds to 127.0.0.1 by default); a fresh random CSRF token
 * of 256 bits; the dedup window {@link DedupWindow#DEFAULT} (retention 7 days, redelivery window 1
 * day), which decides "past retention" and the shortest prune the page accepts; every action logged
 * as one line on {@code System.err}.
 */
public final class UiSettings {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final boolean readOnly;
  private final String accessToken;
  private final String csrfToken;
  private final DedupWindow dedupWindow;
  private final Consumer<String> actionLog;
  private final Set<String> allowedHosts;

  private UiSettings(Builder b) {
    this.allowedHosts = Set.copyOf(b.allowedHosts);
    this.readOnly = b.readOnly;
    this.accessToken = b.accessToken;
    this.csrfToken = b.csrfToken != null ? b.csrfToken : newCsrfToken();
    this.dedupWindow = b.dedupWindow;
    this.actionLog = b.actionLog;
  }

  /**
   * The defaults (see the class comment), with a fresh CSRF token.
   *
   * @return the settings
   */
  public static UiSettings ofDefaults() {
    return custom().build();
  }

  /**
   * A builder starting from the defaults.
   *
   * @return the builder
   */
  public static Builder custom() {
    return new Builder();
  }

  private static String newCsrfToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /**
   * Whether every action is refused.
   *
   * @return true when read-only
   */
  public boolean readOnly() {
    return readOnly;
  }

  /**
   * The access token every request must carry, as a bearer token or as a basic-auth password.
   *
   * @return the token; null when none is required
   */
  public String accessToken() {
    return accessToken;
  }

  /**
   * The CSRF token this instance embeds in its page and requires on every action.
   *
   * @return the token
   */
  public String csrfToken() {
    return csrfToken;
  }

  /**
   * The dedup window: its retention decides "past retention"; a prune must keep more than its
   * redelivery window.
   *
   * @return the window
   */
  public DedupWindow dedupWindow() {
    return dedupWindow;
  }

  /**
   * Where the one-line record of every action goes.
   *
   * @return the log
   */
  public Consumer<String> actionLog() {
    return actionLog;
  }

  /**
   * The host names (without port, lower case) a request's {@code Host} header may name; empty for
   * any. A page served on the loopback interface lists the loopback names here, so that a web page
   * that rebinds its own DNS name to 127.0.0.1 cannot read the page (and its CSRF token).
   *
   * @return the allowed host names; empty when every host is allowed
   */
  public Set<String> allowedHosts() {
    return allowedHosts;
  }

  /** Builds {@link UiSettings}; every setter validates its value and names a bad one. */
  public static final class Builder {
    private boolean readOnly;
    private String accessToken;
    private String csrfToken;
    private DedupWindow dedupWindow = DedupWindow.DEFAULT;
    private Consumer<String> actionLog = System.err::println;
    private final Set<String> allowedHosts = new TreeSet<>();

    private Builder() {}

    /**
     * Accept only requests whose {@code Host} header names one of these hosts (any port); default:
     * any host.
     *
     * @param hosts host names or address literals, e.g. {@code localhost}, {@code 127.0.0.1},
     *     {@code [::1]}
     * @return this builder
     * @throws InvalidConfigurationException for a blank name
     */
    public Builder allowedHosts(Set<String> hosts) {
      for (String h : hosts) {
        if (h == null || h.isBlank()) {
          throw new InvalidConfigurationException("an allowed host must not be blank");
        }
        allowedHosts.add(h.strip().toLowerCase(Locale.ROOT));
      }
      return this;
    }

    /**
     * Refuse every action (default false).
     *
     * @param readOnly true to refuse actions
     * @return this builder
     */
    public Builder readOnly(boolean readOnly) {
      this.readOnly = readOnly;
      return this;
    }

    /**
     * Require this token on every request (default: none).
     *
     * @param accessToken the token, at least 8 characters without whitespace; null for none
     * @return this builder
     * @throws InvalidConfigurationException for a short token or one with whitespace
     */
    public Builder accessToken(String accessToken) {
      if (accessToken != null
          && (accessToken.length() < 8 || !accessToken.equals(accessToken.replaceAll("\\s", "")))) {
        throw new InvalidConfigurationException(
            "the access token must have at least 8 characters and no whitespace (got "
                + accessToken.length()
                + " characters)");
      }
      this.accessToken = accessToken;
      return this;
    }

    /**
     * Use this CSRF token instead of a fresh random one (default: random); for servers that run
     * several instances behind one address.
     *
     * @param csrfToken at least 32 characters
     * @return this builder
     * @throws InvalidConfigurationException for a token shorter than 32 characters
     */
    public Builder csrfToken(String csrfToken) {
      if (csrfToken == null || csrfToken.length() < 32) {
        throw new InvalidConfigurationException("the CSRF token must have at least 32 characters");
      }
      this.csrfToken = csrfToken;
      return this;
    }

    /**
     * The dedup window (default {@link DedupWindow#DEFAULT}).
     *
     * @param dedupWindow the window
     * @return this builder
     * @throws NullPointerException if it is null
     */
    public Builder dedupWindow(DedupWindow dedupWindow) {
      this.dedupWindow = Objects.requireNonNull(dedupWindow, "dedupWindow");
      return this;
    }

    /**
     * Where the action log goes (default: {@code System.err}).
     *
     * @param actionLog receives one line per action
     * @return this builder
     * @throws NullPointerException if it is null
     */
    public Builder actionLog(Consumer<String> actionLog) {
      this.actionLog = Objects.requireNonNull(actionLog, "actionLog");
      return this;
    }

    /**
     * The settings.
     *
     * @return immutable settings
     */
    public UiSettings build() {
      return new UiSettings(this);
    }
  }

  /**
   * For the page's own display of the retention, e.g. "7d".
   *
   * @param d a duration
   * @return its shortest exact rendering in d, h, m, s or ms
   */
  static String format(Duration d) {
    long ms = d.toMillis();
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms > 0 && ms % units[i] == 0) {
        return ms / units[i] + names[i];
      }
    }
    return ms + "ms";
  }
}
