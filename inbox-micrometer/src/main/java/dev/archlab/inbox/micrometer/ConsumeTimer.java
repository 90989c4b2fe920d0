package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import io.micrometer.core.instrument.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Times one consumer's {@code consume} calls into the {@code inbox.consume} timer, tagged with how
 * each delivery ended. It wraps the call rather than listening to events because only the caller
 * sees the whole call: its start (no event marks it), an exception that no event reports (the store
 * unreachable, a payload mismatch, a closed consumer), and the monotonic time between. So it works
 * the same for {@code IdempotentConsumer}, {@code OneCommitConsumer} and {@code BatchConsumer},
 * which all report outcomes but none of which reports durations:
 *
 * <pre>{@code
 * ConsumeTimer timer = metrics.timer(consumer.name());
 * Outcome outcome = timer.consume(message, consumer::consume);
 * List<Outcome> outcomes = timer.consumeBatch(messages, batchConsumer::consume);
 * }</pre>
 *
 * <p>Outcome tags: {@code applied}, {@code duplicate}, {@code in_flight}, {@code failed}, {@code
 * dead} from the returned {@link Outcome}; {@code lease_lost} when the call throws {@link
 * dev.archlab.inbox.LeaseLostException} (or a batch reports a message IN_FLIGHT because its lease
 * was taken over); {@code error} for any other exception. The exception is rethrown unchanged.
 * Thread-safe.
 */
public final class ConsumeTimer {

  private final ConsumerMeters meters;
  private final Clock clock;

  ConsumeTimer(ConsumerMeters meters, Clock clock) {
    this.meters = meters;
    this.clock = clock;
  }

  /**
   * Calls {@code consume} with {@code message} and records how long it took under the outcome's
   * tag.
   *
   * @param message the delivery, passed on as it is
   * @param consume the consumer's {@code consume}, such as {@code consumer::consume}
   * @return what {@code consume} returned
   * @throws InvalidArgumentException if {@code consume} is null (nothing is called or recorded), or
   *     if it returned null (recorded as {@code error})
   * @throws RuntimeException whatever {@code consume} threw, after recording it
   */
  public Outcome consume(Message message, Function<? super Message, Outcome> consume) {
    requireFunction(consume);
    long start = clock.monotonicTime();
    Outcome outcome;
    try {
      outcome = consume.apply(message);
    } catch (RuntimeException | Error e) {
      record(OutcomeTag.of(e), start, 1);
      throw e;
    }
    if (outcome == null) {
      record(OutcomeTag.ERROR, start, 1);
      throw new InvalidArgumentException("consume returned null instead of an outcome");
    }
    record(OutcomeTag.of(outcome), start, 1);
    return outcome;
  }

  /**
   * Calls a batch {@code consume} with {@code messages} and records one sample per message under
   * its own outcome's tag. A message's outcome is known only when the whole call returns, so each
   * sample is the duration of the whole call: the sample count is the number of messages by
   * outcome, the total time is message-seconds waited. If the call throws, one sample per message
   * (at least one) is recorded under {@code lease_lost} or {@code error}.
   *
   * @param messages the deliveries, passed on as they are
   * @param consume the batch consumer's {@code consume}, such as {@code batchConsumer::consume}
   * @return what {@code consume} returned
   * @throws InvalidArgumentException if {@code consume} is null (nothing is called or recorded), or
   *     if it returned null or not one outcome per message (recorded as {@code error})
   * @throws RuntimeException whatever {@code consume} threw, after recording it
   */
  public List<Outcome> consumeBatch(
      List<Message> messages, Function<? super List<Message>, List<Outcome>> consume) {
    requireFunction(consume);
    int size = messages == null ? 0 : messages.size();
    long start = clock.monotonicTime();
    List<Outcome> outcomes;
    try {
      outcomes = consume.apply(messages);
    } catch (RuntimeException | Error e) {
      record(OutcomeTag.of(e), start, Math.max(1, size));
      throw e;
    }
    if (!oneEach(outcomes, size)) {
      record(OutcomeTag.ERROR, start, Math.max(1, size));
      throw new InvalidArgumentException(
          "consume returned "
              + (outcomes == null ? "null" : outcomes.size() + " outcomes (or a null one)")
              + " for "
              + size
              + " messages");
    }
    long elapsed = clock.monotonicTime() - start;
    for (Outcome outcome : outcomes) {
      meters.consume(OutcomeTag.of(outcome)).record(elapsed, TimeUnit.NANOSECONDS);
    }
    return outcomes;
  }

  /** Whether {@code outcomes} has one non-null outcome per message (null-safe for List.of). */
  private static boolean oneEach(List<Outcome> outcomes, int size) {
    if (outcomes == null || outcomes.size() != size) {
      return false;
    }
    for (Outcome o : outcomes) {
      if (o == null) {
        return false;
      }
    }
    return true;
  }

  private void record(OutcomeTag tag, long start, int samples) {
    long elapsed = clock.monotonicTime() - start;
    for (int i = 0; i < samples; i++) {
      meters.consume(tag).record(elapsed, TimeUnit.NANOSECONDS);
    }
  }

  private static void requireFunction(Object consume) {
    if (consume == null) {
      throw new InvalidArgumentException("consume must not be null");
    }
  }
}
