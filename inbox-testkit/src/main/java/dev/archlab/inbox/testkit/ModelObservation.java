package dev.archlab.inbox.testkit;

import static dev.archlab.inbox.testkit.ModelFormat.describe;
import static dev.archlab.inbox.testkit.ModelFormat.hex;
import static dev.archlab.inbox.testkit.ModelFormat.keyOf;
import static dev.archlab.inbox.testkit.ModelFormat.offset;
import static dev.archlab.inbox.testkit.ModelFormat.relative;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer to one call (or the records one side holds), in a form that can be compared across
 * store and model: times made relative to the answering side's clock.
 *
 * @param outcome the decision, count, claim or exception type; compared exactly
 * @param timeName what {@code time} is, for the trace, or null
 * @param time the one time the answer carried besides records (a begin's store time, an extended
 *     claim's lease end), or null; compared like the times of records
 * @param records the records the answer carried; compared field by field
 * @param claim a claim the answer handed out, kept for later calls; not compared
 * @param note extra detail for the trace (an exception message); not compared
 */
record ModelObservation(
    String outcome, String timeName, Duration time, List<View> records, Claim claim, String note) {

  static ModelObservation of(String outcome, List<View> records, Claim claim, String note) {
    return new ModelObservation(outcome, null, null, records, claim, note);
  }

  /** What one side answered to a call: the value it returned, or the exception it threw. */
  record Answer(Object value, RuntimeException thrown) {

    /** Sends {@code call} to {@code target}. */
    static Answer of(InboxStore target, ModelAction.Call call, Claim claim) {
      try {
        return new Answer(call.applyTo(target, claim), null);
      } catch (RuntimeException e) {
        return new Answer(null, e);
      }
    }
  }

  /** Describes {@code answer}, with times relative to {@code now} of the side that answered. */
  static ModelObservation observe(Answer answer, Instant now, ModelAction.Call call) {
    if (answer.thrown() != null) {
      // Only the type is part of the contract; the message is for the reader.
      RuntimeException e = answer.thrown();
      return of("threw " + e.getClass().getSimpleName(), List.of(), null, e.getMessage());
    }
    Object value = answer.value();
    if (value instanceof BeginResult r) {
      return new ModelObservation(
          r.kind().name(),
          "at ",
          relative(r.storeTime(), now),
          List.of(View.of(r.record(), now)),
          r.claimed() ? r.claim() : null,
          null);
    }
    if (value instanceof InboxRecord r) {
      return of("ok", List.of(View.of(r, now)), null, null);
    }
    if (value instanceof Claim c) {
      return new ModelObservation(
          "extended to " + describe(c),
          "leaseUntil=",
          relative(c.leaseUntil(), now),
          List.of(),
          c,
          null);
    }
    if (value instanceof Long n) {
      return of("pruned " + n, List.of(), null, null);
    }
    if (value instanceof Optional<?> found) {
      List<View> views = found.map(r -> View.of((InboxRecord) r, now)).stream().toList();
      return of(views.isEmpty() ? "absent" : "found", views, null, null);
    }
    throw new IllegalStateException("unexpected answer " + value + " to " + call);
  }

  /** A list of records, viewed from {@code now}. */
  static ModelObservation records(List<InboxRecord> found, Instant now) {
    List<View> views = found.stream().map(r -> View.of(r, now)).toList();
    return of(views.size() + " record(s)", views, null, null);
  }

  /** The records sorted by key, for comparing lists whose order among equal createdAt is open. */
  static List<InboxRecord> byKey(List<InboxRecord> records) {
    List<InboxRecord> sorted = new ArrayList<>(records);
    sorted.sort(Comparator.comparing(ModelFormat::keyOf));
    return sorted;
  }

  /** Equal, times included; see {@link View#agreesWith} for the one allowance. */
  boolean agreesWith(ModelObservation actual) {
    if (!outcome.equals(actual.outcome)
        || !Objects.equals(time, actual.time)
        || records.size() != actual.records.size()) {
      return false;
    }
    for (int i = 0; i < records.size(); i++) {
      if (!records.get(i).agreesWith(actual.records.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(outcome);
    if (time != null) {
      s.append(' ').append(timeName).append(offset(time));
    }
    for (View v : records) {
      s.append(records.size() == 1 ? " " : "\n         ").append(v);
    }
    if (note != null) {
      s.append(" (").append(note).append(')');
    }
    return s.toString();
  }

  /** One record with its times as offsets from "now", truncated to microseconds. */
  record View(
      String key,
      RecordState state,
      int attempts,
      Duration leaseUntil,
      Duration createdAt,
      Duration updatedAt,
      String lastError,
      String payloadHash,
      String result) {

    static View of(InboxRecord r, Instant now) {
      return new View(
          keyOf(r),
          r.state(),
          r.attempts(),
          relative(r.leaseUntil(), now),
          relative(r.createdAt(), now),
          relative(r.updatedAt(), now),
          r.lastError(),
          r.payloadHash(),
          hex(r.result()));
    }

    /** Equal, except that the model's {@link InboxModel#ANY_ERROR} accepts any non-null error. */
    boolean agreesWith(View actual) {
      boolean errorAgrees =
          InboxModel.ANY_ERROR.equals(lastError)
              ? actual.lastError != null
              : Objects.equals(lastError, actual.lastError);
      return errorAgrees
          && key.equals(actual.key)
          && state == actual.state
          && attempts == actual.attempts
          && Objects.equals(leaseUntil, actual.leaseUntil)
          && Objects.equals(createdAt, actual.createdAt)
          && Objects.equals(updatedAt, actual.updatedAt)
          && Objects.equals(payloadHash, actual.payloadHash)
          && Objects.equals(result, actual.result);
    }

    @Override
    public String toString() {
      return "["
          + key
          + " "
          + state
          + " attempts="
          + attempts
          + (leaseUntil == null ? "" : " leaseUntil=" + offset(leaseUntil))
          + " created="
          + offset(createdAt)
          + " updated="
          + offset(updatedAt)
          + (lastError == null ? "" : " error='" + lastError + "'")
          + (payloadHash == null ? "" : " hash=" + payloadHash)
          + (result == null ? "" : " result=" + result)
          + "]";
    }
  }
}
