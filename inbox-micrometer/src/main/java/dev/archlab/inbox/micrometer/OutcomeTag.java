package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Outcome;
import java.util.Locale;

/** The {@code outcome} tag of the consume timer: one value per way a delivery can end. */
enum OutcomeTag {
  APPLIED,
  DUPLICATE,
  IN_FLIGHT,
  FAILED,
  DEAD,
  LEASE_LOST,
  ERROR;

  private final String value = name().toLowerCase(Locale.ROOT);

  String value() {
    return value;
  }

  /**
   * The tag of a returned outcome. A batch reports a message whose lease was taken over as
   * IN_FLIGHT carrying the {@link LeaseLostException}; it is tagged {@code lease_lost}, as the
   * single consumers' thrown exception is.
   */
  static OutcomeTag of(Outcome outcome) {
    switch (outcome.status()) {
      case APPLIED:
        return APPLIED;
      case DUPLICATE:
        return DUPLICATE;
      case IN_FLIGHT:
        return outcome.error() instanceof LeaseLostException ? LEASE_LOST : IN_FLIGHT;
      case FAILED:
        return FAILED;
      case DEAD:
        return DEAD;
      default:
        throw new IllegalStateException("unknown outcome status " + outcome.status());
    }
  }

  /** The tag of a consume call that threw {@code failure}. */
  static OutcomeTag of(Throwable failure) {
    return failure instanceof LeaseLostException ? LEASE_LOST : ERROR;
  }
}
