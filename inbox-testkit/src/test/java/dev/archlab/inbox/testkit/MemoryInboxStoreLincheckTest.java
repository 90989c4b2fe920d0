package dev.archlab.inbox.testkit;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.UnknownClaimException;
import dev.archlab.inbox.memory.MemoryInboxStore;
import dev.archlab.inbox.store.BeginRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the memory store's {@code begin}, plain {@code complete} and {@code find},
 * checked by Lincheck's model checker (it explores thread interleavings systematically) against
 * {@link InboxSequentialSpec}. Two ids, tokens 1–2 and two payload hashes keep the state space
 * small enough for every interleaving of short scenarios to matter.
 *
 * <p>CI runs {@value #DEFAULT_INVOCATIONS} invocations per scenario (20 scenarios) to stay cheap;
 * the long run by hand, {@code -Dinbox.test.long=true} ({@link LongRun}), runs {@value
 * #LONG_INVOCATIONS} (about a minute on a loaded 2-core machine), and {@code
 * -Dinbox.lincheck.invocations=N} any other number.
 */
@Param(name = "id", gen = IntGen.class, conf = "1:2")
@Param(name = "token", gen = IntGen.class, conf = "1:2")
@Param(name = "hash", gen = IntGen.class, conf = "0:2")
public class MemoryInboxStoreLincheckTest {

  static final int DEFAULT_INVOCATIONS = 60;
  static final int LONG_INVOCATIONS = 500;

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration LEASE = Duration.ofHours(1);

  // A fixed clock: leases never run out, so the answers depend on the order of calls only.
  private final MemoryInboxStore store = new MemoryInboxStore(Clock.fixed(NOW, ZoneOffset.UTC));

  @Operation
  public String begin(@Param(name = "id") int id, @Param(name = "hash") int hash) {
    try {
      return store
          .begin(new BeginRequest("lin", "m" + id, LEASE, 3, hash == 0 ? null : "h" + hash))
          .kind()
          .name();
    } catch (PayloadMismatchException e) {
      return "MISMATCH";
    }
  }

  @Operation
  public String complete(@Param(name = "id") int id, @Param(name = "token") int token) {
    try {
      store.complete(new Claim("lin", "m" + id, token, NOW), null);
      return "DONE";
    } catch (LeaseLostException e) {
      return "LOST";
    } catch (UnknownClaimException e) {
      return "UNKNOWN";
    }
  }

  @Operation
  public String find(@Param(name = "id") int id) {
    return store.find("lin", "m" + id).map(r -> r.state() + "/" + r.attempts()).orElse("absent");
  }

  @Test
  void linearizableUnderModelChecking() {
    new ModelCheckingOptions()
        .sequentialSpecification(InboxSequentialSpec.class)
        .iterations(20)
        .invocationsPerIteration(
            Integer.getInteger(
                "inbox.lincheck.invocations", LongRun.pick(DEFAULT_INVOCATIONS, LONG_INVOCATIONS)))
        .threads(2)
        .actorsPerThread(3)
        .check(MemoryInboxStoreLincheckTest.class);
  }
}
