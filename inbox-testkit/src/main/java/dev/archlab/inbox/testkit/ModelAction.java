package dev.archlab.inbox.testkit;

import static dev.archlab.inbox.testkit.ModelFormat.CONSUMERS;
import static dev.archlab.inbox.testkit.ModelFormat.GHOST_ID;
import static dev.archlab.inbox.testkit.ModelFormat.MESSAGE_IDS;
import static dev.archlab.inbox.testkit.ModelFormat.hex;
import static dev.archlab.inbox.testkit.ModelFormat.key;
import static dev.archlab.inbox.testkit.ModelFormat.offset;
import static dev.archlab.inbox.testkit.ModelFormat.seconds;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;

/**
 * One step of a model test sequence. Steps name keys by index and claims by {@link ClaimRef}
 * (resolved against what the store handed out when the step runs), so any subsequence of a sequence
 * is still a valid sequence: that is what lets the shrinker drop steps freely. Each step has a
 * short {@code toString}, because failures print the (shrunk) sequence.
 */
sealed interface ModelAction
    permits ModelAction.Call, ModelAction.Advance, ModelAction.ListRecords {

  /** A step that calls the store; the model gets the identical call. */
  sealed interface Call extends ModelAction
      permits Begin, Complete, Fail, MarkDead, Extend, Prune, PruneConsumer, Find {
    Object applyTo(InboxStore target, Claim claim);

    /** Which claim the call uses, or null for calls that take none. */
    default ClaimRef claimRef() {
      return null;
    }
  }

  record Begin(int consumer, int id, long leaseMillis, int maxAttempts, String payloadHash)
      implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.begin(
          new BeginRequest(
              CONSUMERS.get(consumer),
              MESSAGE_IDS.get(id),
              Duration.ofMillis(leaseMillis),
              maxAttempts,
              payloadHash));
    }

    @Override
    public String toString() {
      return "begin("
          + key(consumer, id)
          + ", lease="
          + seconds(leaseMillis)
          + ", maxAttempts="
          + maxAttempts
          + (payloadHash == null ? "" : ", hash=" + payloadHash)
          + ")";
    }
  }

  record Complete(ClaimRef claimRef, byte[] result) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      // A copy per side, so neither can affect what the other receives.
      return target.complete(claim, result == null ? null : result.clone());
    }

    @Override
    public String toString() {
      return "complete(" + claimRef + ", result=" + hex(result) + ")";
    }
  }

  record Fail(ClaimRef claimRef, String error, long retryDelayMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.fail(claim, error, Duration.ofMillis(retryDelayMillis));
    }

    @Override
    public String toString() {
      return "fail(" + claimRef + ", '" + error + "', retry in " + seconds(retryDelayMillis) + ")";
    }
  }

  record MarkDead(ClaimRef claimRef, String error) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.markDead(claim, error);
    }

    @Override
    public String toString() {
      return "markDead(" + claimRef + ", '" + error + "')";
    }
  }

  record Extend(ClaimRef claimRef, long leaseMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.extend(claim, Duration.ofMillis(leaseMillis));
    }

    @Override
    public String toString() {
      return "extend(" + claimRef + ", lease=" + seconds(leaseMillis) + ")";
    }
  }

  /** Prunes every consumer, cutting off {@code agoMillis} before the store's now. */
  record Prune(long agoMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.prune(target.currentTime().minusMillis(agoMillis));
    }

    @Override
    public String toString() {
      return "prune(before " + offset(Duration.ofMillis(-agoMillis)) + ")";
    }
  }

  record PruneConsumer(int consumer, long agoMillis) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.prune(CONSUMERS.get(consumer), target.currentTime().minusMillis(agoMillis));
    }

    @Override
    public String toString() {
      return "prune("
          + CONSUMERS.get(consumer)
          + ", before "
          + offset(Duration.ofMillis(-agoMillis))
          + ")";
    }
  }

  record Find(int consumer, int id) implements Call {
    @Override
    public Object applyTo(InboxStore target, Claim claim) {
      return target.find(CONSUMERS.get(consumer), MESSAGE_IDS.get(id));
    }

    @Override
    public String toString() {
      return "find(" + key(consumer, id) + ")";
    }
  }

  /** Moves the store's clock (through the fixture) and the model's clock by the same amount. */
  record Advance(long millis) implements ModelAction {
    @Override
    public String toString() {
      return "advance(" + seconds(millis) + ")";
    }
  }

  /** A limited list; checked against the model with ties in {@code createdAt} left open. */
  record ListRecords(RecordState state, int consumer, int limit) implements ModelAction {
    String consumerName() {
      return consumer < 0 ? null : CONSUMERS.get(consumer);
    }

    @Override
    public String toString() {
      return "list(" + state + ", " + (consumer < 0 ? "all" : consumerName()) + ", " + limit + ")";
    }
  }

  /**
   * Which claim a fenced call uses. LATEST is the last claim the store handed out for the key,
   * STALE an older one ({@code depth} steps back), FORGED a token above any the key has reached,
   * GHOST a key that never existed. A key with no claim yet gets a made-up first claim instead.
   */
  record ClaimRef(Kind kind, int consumer, int id, int depth) {
    enum Kind {
      LATEST,
      STALE,
      FORGED,
      GHOST
    }

    @Override
    public String toString() {
      switch (kind) {
        case LATEST:
          return "latest " + key(consumer, id);
        case STALE:
          return "stale-" + depth + " " + key(consumer, id);
        case FORGED:
          return "forged+" + depth + " " + key(consumer, id);
        default:
          return "ghost " + CONSUMERS.get(consumer) + "/" + GHOST_ID;
      }
    }
  }
}
