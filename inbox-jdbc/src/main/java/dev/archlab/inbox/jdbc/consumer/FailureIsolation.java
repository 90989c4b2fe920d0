package dev.archlab.inbox.jdbc.consumer;

import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.IntFunction;

/**
 * How a batch run that failed as a whole is narrowed down to the messages that fail, shared by the
 * batch consumers: a {@link BatchItemFailedException} names them (each records its own failure, the
 * rest run again together); any other failure splits the group in two halves, first half first,
 * down to single messages, as AWS Lambda's bisect-on-error does; a single message that fails
 * records it. Groups are lists of positions in delivery order.
 */
final class FailureIsolation {

  /** Records the failed attempt of the message at a position. */
  @FunctionalInterface
  interface Failer {
    void fail(int position, Exception failure);
  }

  private FailureIsolation() {}

  /**
   * Settles {@code group}, whose run failed with {@code failure}: records the failures it can
   * attribute and pushes the groups to run again onto {@code pending} (the next to run on top).
   *
   * @param idAt the message id at a position
   * @param firstNamedOnly record only the first named message (in delivery order); the others run
   *     again, for a consumer that stops at the first message that does not finish
   */
  static void isolate(
      Exception failure,
      List<Integer> group,
      IntFunction<String> idAt,
      boolean firstNamedOnly,
      Failer failer,
      Deque<List<Integer>> pending) {
    List<Integer> named = named(failure, group, idAt);
    if (named != null && firstNamedOnly) {
      named = List.of(named.get(0));
    }
    if (named != null) {
      Throwable cause = failure.getCause();
      for (int i : named) {
        failer.fail(i, cause instanceof Exception e ? e : failure);
      }
      List<Integer> rest = new ArrayList<>(group);
      rest.removeAll(named);
      if (!rest.isEmpty()) {
        pending.push(List.copyOf(rest));
      }
    } else if (group.size() == 1) {
      failer.fail(group.get(0), failure);
    } else {
      int half = (group.size() + 1) / 2;
      pending.push(List.copyOf(group.subList(half, group.size())));
      pending.push(List.copyOf(group.subList(0, half)));
    }
  }

  /**
   * The positions of the messages a {@link BatchItemFailedException} names, in delivery order, or
   * null if {@code failure} names none or names an id outside {@code group} (then it counts as
   * unnamed).
   */
  private static List<Integer> named(
      Exception failure, List<Integer> group, IntFunction<String> idAt) {
    if (!(failure instanceof BatchItemFailedException items)) {
      return null;
    }
    List<Integer> named = new ArrayList<>();
    for (int i : group) {
      if (items.failedMessageIds().contains(idAt.apply(i))) {
        named.add(i);
      }
    }
    return named.size() == items.failedMessageIds().size() ? named : null;
  }
}
