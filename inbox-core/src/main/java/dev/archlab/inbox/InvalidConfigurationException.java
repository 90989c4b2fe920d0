package dev.archlab.inbox;

/**
 * A configuration value was refused when a builder was built. The message names the setting and the
 * value that was given.
 */
public class InvalidConfigurationException extends InvalidArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was refused and why, naming the parameter or setting and the value given
   */
  public InvalidConfigurationException(String message) {

    super(message);
  }
}
