package dev.archlab.inbox;

/**
 * A value handed to this library was refused, and nothing was changed. Every refusal of caller
 * input is one of these (unchecked, like every {@link InboxException}); the subclasses name the
 * kind where callers may want to tell them apart:
 *
 * <ul>
 *   <li>{@link InvalidMessageIdException}, {@link InvalidConsumerNameException}: a bad key;
 *   <li>{@link InvalidConfigurationException}: a setting refused when a builder was built;
 *   <li>this class itself: an out-of-range operation argument, such as a non-positive lease for
 *       {@link Attempt#extendLease} or a store's {@code extend}, a negative retry delay, a result
 *       over {@link InboxRecord#MAX_RESULT_BYTES}, a fencing token below 1, a negative limit.
 * </ul>
 *
 * <p>A {@code null} handed to a consumer ({@code consume}, {@code extendLease}) or to a consumer's
 * builder is one of these too, naming the parameter; a null id or consumer name gets its own type.
 * Lower-level calls (the store SPI, value-type constructors) keep the JDK's {@link
 * NullPointerException} for a null argument.
 */
public class InvalidArgumentException extends InboxException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was refused and why, naming the parameter or setting and the value given
   */
  public InvalidArgumentException(String message) {

    super(message);
  }
}
