package dev.archlab.inbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.RecordStateMachine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scale-out ledger accepts every outcome the invariant allows and names each id that breaks it.
 */
class ScaleOutLedgerTest {

  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private static final String LEASE_EXPIRED =
      String.format(Locale.ROOT, RecordStateMachine.LEASE_EXPIRED_ERROR_FORMAT, 2);

  private final Set<String> good = new HashSet<>(Set.of("g1", "g2", "g3"));
  private final Set<String> poison = Set.of("p1");
  private final Map<String, Integer> effects = new HashMap<>(Map.of("g1", 1, "g2", 1));
  private final List<InboxRecord> records =
      new ArrayList<>(
          List.of(
              record("g1", RecordState.DONE, 1, null),
              record("g2", RecordState.DONE, 2, null),
              record("g3", RecordState.DEAD, 2, LEASE_EXPIRED),
              record("p1", RecordState.DEAD, 2, "poison message p1")));
  private final Set<String> deadLettered = new HashSet<>(Set.of("g3", "p1"));

  private static InboxRecord record(String id, RecordState state, int attempts, String error) {
    return new InboxRecord("c", id, state, attempts, T, T, T, error, null, null);
  }

  private ScaleOutLedger ledger() {
    return new ScaleOutLedger(good, poison, effects, records, deadLettered, "dead-letter queue");
  }

  private void replace(String id, RecordState state, int attempts, String error) {
    records.removeIf(r -> r.messageId().equals(id));
    records.add(record(id, state, attempts, error));
  }

  @Test
  void aRunKeepingTheInvariantPassesAndCountsGoodIdsDeadByLeaseExpiry() {
    ScaleOutLedger ledger = ledger();
    assertThat(ledger.violations()).isNull();
    assertThat(ledger.goodDeadByLeaseExpiry()).containsExactly("g3");
    assertThat(ledger.effectRows()).isEqualTo(2);
    assertThat(ledger.doubleEffects()).isZero();
    assertThat(ledger.lost()).isZero();
  }

  @Test
  void aDoubleEffectIsNamed() {
    effects.put("g1", 3);
    assertThat(ledger().violations()).contains("g1: DONE with 3 effect rows");
    assertThat(ledger().doubleEffects()).isEqualTo(2);
  }

  @Test
  void aLostIdIsNamed() {
    records.removeIf(r -> r.messageId().equals("g2"));
    effects.remove("g2");
    assertThat(ledger().violations()).contains("g2: no inbox row (lost)");
    assertThat(ledger().lost()).isEqualTo(1);
  }

  @Test
  void anIdLeftProcessingIsNamedWithItsAttempts() {
    replace("g2", RecordState.PROCESSING, 1, null);
    effects.remove("g2");
    assertThat(ledger().violations()).contains("g2: left PROCESSING", "attempts=1");
    assertThat(ledger().lost()).isEqualTo(1);
  }

  @Test
  void aGoodIdDeadForAnotherReasonIsNamed() {
    replace("g3", RecordState.DEAD, 2, "boom");
    assertThat(ledger().violations()).contains("g3: good id DEAD for another reason");
  }

  @Test
  void aDeadIdNotDeadLetteredIsNamed() {
    deadLettered.remove("p1");
    assertThat(ledger().violations()).contains("p1: DEAD but not on the dead-letter queue");
  }

  @Test
  void aPoisonEffectAndAStrayDeadLetterAreNamed() {
    effects.put("p1", 1);
    deadLettered.add("g1");
    assertThat(ledger().violations())
        .contains(
            "p1: effect for an id that is poison or was never sent",
            "g1: on the dead-letter queue but not DEAD");
  }
}
