package dev.archlab.inbox.jdbc.dialect;

import java.util.List;
import java.util.Objects;

/**
 * How a one-commit claim bounds its wait for another transaction's row lock on one database: the
 * statements run in the transaction before the claim, a prefix put in front of the claim's {@code
 * INSERT}, and the statements run right after the claim (also when it failed) to put back any
 * session setting the first ones changed. Made by {@link JdbcDialect#claimLockTimeout}.
 *
 * @param before statements run before the claim, in order; may be empty
 * @param insertPrefix text put in front of the claim's {@code INSERT}; empty for none
 * @param after statements run after the claim, in order, to restore the session; may be empty
 */
public record LockTimeoutPlan(List<String> before, String insertPrefix, List<String> after) {

  public LockTimeoutPlan {
    before = List.copyOf(before);
    insertPrefix = Objects.requireNonNull(insertPrefix, "insertPrefix");
    after = List.copyOf(after);
  }
}
