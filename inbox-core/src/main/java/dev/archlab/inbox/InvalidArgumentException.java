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
 * <p>A {@code null} where a value is required is a {@link NullPointerException} naming the
 * parameter, as in the JDK; ids and consumer names are the exception and get their own types.
 */
public class InvalidArgumentException extends InboxException {
  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String message) {
    super(message);
  }
}
