package dev.archlab.inbox.store;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxException;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * The rules of a dedup record's life, written once for every store (docs/DESIGN.md §3): what {@code
 * begin} decides for a record that exists, and why a fenced change is refused. Pure functions of
 * their arguments: nothing here reads a clock or writes anything, so a store decides with these and
 * then makes the decision durable its own way (a compare-and-set in memory, an UPDATE conditioned
 * on what was read in SQL).
 */
public final class RecordStateMachine {

  private RecordStateMachine() {}

  /**
   * The {@code lastError} of a record that {@code begin} parks as DEAD because its last attempt's
   * lease ran out without a recorded failure, as a {@link String#format} pattern of the attempt
   * count ({@code %d}). Public so a store that decides on its server (a Redis script) writes the
   * same text.
   */
  public static final String LEASE_EXPIRED_ERROR_FORMAT =
      "lease expired without completion after %d attempt(s); the handler probably crashed the"
          + " process";

  /**
   * What {@code begin} answers for an existing record {@code current} read at the store time {@code
   * now}.
   *
   * <ul>
   *   <li>DONE → {@code DUPLICATE}; DEAD → {@code DEAD}; PROCESSING before its lease end → {@code
   *       IN_FLIGHT}: the record is returned as read and nothing needs writing.
   *   <li>PROCESSING past its lease end with attempts below {@code maxAttempts} → {@code RETRIED}
   *       (it waited for the retry of a recorded failure) or {@code TAKEN_OVER} (a running
   *       attempt's lease ran out), with attempts + 1, a lease from {@code now} and no error.
   *   <li>PROCESSING past its lease end at {@code maxAttempts} → {@code DIED}, the record DEAD.
   * </ul>
   *
   * <p>For the last three the returned record is the one to write, and the store must write it only
   * if the record is still exactly {@code current} (see {@link #writes(Kind)}); if it changed
   * meanwhile, the store reads again and decides again.
   *
   * @param request the validated begin request
   * @param current the record as the store read it
   * @param now the store's clock when it read {@code current}
   * @return the decision, the record after it and {@code now}
   * @throws PayloadMismatchException if both the request and the record carry a payload hash and
   *     they differ
   * @throws NullPointerException if any argument is null
   */
  public static BeginResult begin(BeginRequest request, InboxRecord current, Instant now) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(now, "now");
    if (request.payloadHash() != null
        && current.payloadHash() != null
        && !request.payloadHash().equals(current.payloadHash())) {
      throw new PayloadMismatchException(request.consumer(), request.messageId());
    }
    switch (current.state()) {
      case DONE:
        return BeginResult.of(Kind.DUPLICATE, current, now);
      case DEAD:
        return BeginResult.of(Kind.DEAD, current, now);
      default:
        break;
    }
    if (now.isBefore(current.leaseUntil())) {
      return BeginResult.of(Kind.IN_FLIGHT, current, now);
    }
    if (current.attempts() >= request.maxAttempts()) {
      String error =
          current.lastError() != null
              ? current.lastError()
              : String.format(Locale.ROOT, LEASE_EXPIRED_ERROR_FORMAT, current.attempts());
      return BeginResult.of(
          Kind.DIED,
          current.transitioned(RecordState.DEAD, current.attempts(), null, now, error),
          now);
    }
    // A PROCESSING record keeps an error only while it waits for the retry of a recorded failure;
    // the new attempt starts without one, so a crash of that attempt reads as a takeover later.
    return BeginResult.of(
        current.lastError() != null ? Kind.RETRIED : Kind.TAKEN_OVER,
        current.transitioned(
            RecordState.PROCESSING, current.attempts() + 1, now.plus(request.lease()), now, null),
        now);
  }

  /**
   * Whether a decision of {@link #begin} changes the record, so the store must write it,
   * conditioned on the record it read.
   *
   * @param kind a decision about an existing record
   * @return true for {@code TAKEN_OVER}, {@code RETRIED} and {@code DIED}
   */
  public static boolean writes(Kind kind) {
    return kind == Kind.TAKEN_OVER || kind == Kind.RETRIED || kind == Kind.DIED;
  }

  /**
   * Whether {@code claim} may still change a record in {@code state} at {@code attempts}: the
   * fencing rule. Only the owner of the current attempt of a PROCESSING record may.
   *
   * @param claim the caller's claim
   * @param state the record's state
   * @param attempts the record's attempts, its current fencing token
   * @return true if the record is PROCESSING under exactly the claim's token
   */
  public static boolean owns(Claim claim, RecordState state, int attempts) {
    return state == RecordState.PROCESSING && attempts == claim.fencingToken();
  }

  /**
   * Why a fenced change by {@code claim} is refused, for a record that no longer matches it.
   *
   * @param claim the refused claim
   * @param current the record for the claim's key, or null when there is none
   * @return {@link UnknownClaimException} if there is no record or the claim's token is beyond any
   *     attempt the record has reached, else {@link LeaseLostException}
   */
  public static InboxException refusal(Claim claim, InboxRecord current) {
    return current == null
        ? new UnknownClaimException(claim, "no record exists for this key")
        : refusal(claim, current.state(), current.attempts());
  }

  /**
   * As {@link #refusal(Claim, InboxRecord)} for a record known by its state and attempts only.
   *
   * @param claim the refused claim
   * @param state the record's state
   * @param attempts the record's attempts
   * @return the exception to throw or report
   */
  public static InboxException refusal(Claim claim, RecordState state, int attempts) {
    if (claim.fencingToken() > attempts) {
      return new UnknownClaimException(claim, "the record has only reached attempt " + attempts);
    }
    return new LeaseLostException(claim, state, attempts);
  }
}
