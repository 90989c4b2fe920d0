package dev.archlab.inbox.micrometer;

import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@link InboxStatsSource#scanning}: counts a store's records, state by state. */
final class RecordScan implements InboxStatsSource {

  private final InboxStore store;

  RecordScan(InboxStore store) {
    this.store = store;
  }

  @Override
  public List<InboxStats> read() {
    List<InboxRecord> processing = store.list(RecordState.PROCESSING, null, Integer.MAX_VALUE);
    List<InboxRecord> done = store.list(RecordState.DONE, null, Integer.MAX_VALUE);
    List<InboxRecord> dead = store.list(RecordState.DEAD, null, Integer.MAX_VALUE);
    // Read after listing, so no listed record was created after "now" (ages stay >= 0).
    Instant now = store.currentTime();
    Map<String, Tally> tallies = new TreeMap<>();
    for (InboxRecord r : processing) {
      Tally t = tallies.computeIfAbsent(r.consumer(), c -> new Tally());
      t.processing++;
      // Expired as begin sees it: a claim may be taken over once now >= leaseUntil.
      if (!now.isBefore(r.leaseUntil())) {
        t.expired++;
      }
      if (t.oldest == null || r.createdAt().isBefore(t.oldest)) {
        t.oldest = r.createdAt();
      }
    }
    for (InboxRecord r : done) {
      tallies.computeIfAbsent(r.consumer(), c -> new Tally()).done++;
    }
    for (InboxRecord r : dead) {
      tallies.computeIfAbsent(r.consumer(), c -> new Tally()).dead++;
    }
    List<InboxStats> out = new ArrayList<>(tallies.size());
    tallies.forEach(
        (consumer, t) -> {
          Duration age =
              t.oldest == null || t.oldest.isAfter(now)
                  ? Duration.ZERO
                  : Duration.between(t.oldest, now);
          out.add(new InboxStats(consumer, t.processing, t.done, t.dead, t.expired, age));
        });
    return List.copyOf(out);
  }

  private static final class Tally {
    long processing;
    long done;
    long dead;
    long expired;
    Instant oldest;
  }
}
