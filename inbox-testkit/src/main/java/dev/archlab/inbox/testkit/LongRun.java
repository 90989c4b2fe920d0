package dev.archlab.inbox.testkit;

/**
 * Whether the long versions of the randomized and exhaustive tests were asked for: {@code
 * -Dinbox.test.long=true}. CI runs every such test at a size that finishes in seconds on a loaded
 * 2-core machine; the long versions (more Lincheck scenarios and invocations, more model seeds,
 * bigger data) are for a run by hand before a release or after a change to the code they check. A
 * test that has a long version says in its Javadoc what changes.
 */
public final class LongRun {

  /** The system property that asks for the long versions: {@value}. */
  public static final String PROPERTY = "inbox.test.long";

  private LongRun() {}

  /**
   * Whether {@value #PROPERTY} is {@code true}.
   *
   * @return true when the long versions were asked for
   */
  public static boolean requested() {
    return Boolean.getBoolean(PROPERTY);
  }

  /**
   * {@code shortValue} in a normal run, {@code longValue} when the long versions were asked for.
   *
   * @param shortValue the size CI runs
   * @param longValue the size of the long version
   * @return the size for this run
   */
  public static int pick(int shortValue, int longValue) {
    return requested() ? longValue : shortValue;
  }
}
