package dev.archlab.inbox;

/**
 * A configuration value was refused when a builder was built. The message names the setting and the
 * value that was given.
 */
public class InvalidConfigurationException extends InvalidArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidConfigurationException(String message) {
    super(message);
  }
}
