package dev.archlab.inbox.cli;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.LeaseLostException;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The seed article's story told live against any {@link InboxStore}, in real time with short
 * leases: repeat delivery, concurrent duplicates, failure and retry, crash and takeover, a fenced
 * stale owner, a poison message and the dedup-window edge. Each scenario checks its own facts and
 * reports whether they held.
 */
public final class SeedStory {

  /** What one scenario did and whether its facts held. */
  public record Scenario(
      String name,
      List<String> outcomes,
      int handlerCalls,
      int attempts,
      boolean passed,
      String note) {}

  private static final Duration LEASE = Duration.ofMillis(300);

  private final InboxStore store;
  private final String runId;

  /**
   * @param store where the records go
   * @param runId makes this run's message ids unique, so the story can run again on a durable store
   */
  public SeedStory(InboxStore store, String runId) {
    this.store = store;
    this.runId = runId;
  }

  /** Runs every scenario in order. */
  public List<Scenario> runAll() throws Exception {
    return List.of(
        repeatDelivery(),
        concurrentDuplicates(),
        failureAndRetry(),
        crashAndTakeover(),
        staleOwnerFenced(),
        poisonMessage(),
        dedupWindowEdge());
  }

  private IdempotentConsumer consumer(MessageHandler handler, int maxAttempts) {
    return IdempotentConsumer.builder("demo-notifier", store)
        .handler(handler)
        .config(
            InboxConfig.custom()
                .lease(LEASE)
                .retryPolicy(
                    RetryPolicy.custom()
                        .maxAttempts(maxAttempts)
                        .initialDelay(Duration.ofMillis(100))
                        .maxDelay(Duration.ofMillis(400))
                        .jitter(0)
                        .build())
                .build())
        .build();
  }

  private Message message(String name) {
    return Message.of(
        runId + "-" + name,
        "order.placed",
        ("{\"order\":\"" + name + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** The attempts of {@code m}'s record as the store has it now; 0 if there is none. */
  private int attemptsOf(Message m) {
    return store.find("demo-notifier", m.id()).map(InboxRecord::attempts).orElse(0);
  }

  Scenario repeatDelivery() {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c = consumer((m, a) -> calls.incrementAndGet(), 5);
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      seen.add(c.consume(message("repeat")).status().name());
    }
    boolean ok = seen.equals(List.of("APPLIED", "DUPLICATE", "DUPLICATE")) && calls.get() == 1;
    return new Scenario(
        "repeat delivery",
        seen,
        calls.get(),
        attemptsOf(message("repeat")),
        ok,
        "the broker redelivered a finished message twice; acknowledged without running");
  }

  Scenario concurrentDuplicates() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              calls.incrementAndGet();
              Thread.sleep(50);
            },
            5);
    int workers = 6;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    List<String> seen = new ArrayList<>();
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return c.consume(message("concurrent"));
                }));
      }
      start.countDown();
      for (Future<Outcome> f : futures) {
        seen.add(f.get(30, TimeUnit.SECONDS).status().name());
      }
    } finally {
      pool.shutdownNow();
    }
    long applied = seen.stream().filter("APPLIED"::equals).count();
    return new Scenario(
        "concurrent duplicates",
        seen,
        calls.get(),
        attemptsOf(message("concurrent")),
        applied == 1 && calls.get() == 1,
        workers
            + " instances got the same message at once; one ran it, the rest were told to"
            + " redeliver later");
  }

  Scenario failureAndRetry() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c =
        consumer(
            (m, a) -> {
              if (calls.incrementAndGet() <= 2) {
                throw new IllegalStateException("SMS provider timeout");
              }
            },
            5);
    List<String> seen = new ArrayList<>();
    Outcome last;
    do {
      last = c.consume(message("retry"));
      seen.add(last.status().name());
      if (last.status() == Outcome.Status.FAILED || last.status() == Outcome.Status.IN_FLIGHT) {
        Thread.sleep(Math.max(1, last.retryAfter().toMillis()) + 5);
      }
    } while (last.status() != Outcome.Status.APPLIED && seen.size() < 20);
    boolean ok =
        last.status() == Outcome.Status.APPLIED && calls.get() == 3 && last.attempts() == 3;
    return new Scenario(
        "handler failure, retried with backoff",
        seen,
        calls.get(),
        last.attempts(),
        ok,
        "failed twice, redelivered after each backoff delay, applied on try 3");
  }

  Scenario crashAndTakeover() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Message m = message("crash");
    // Instance A claims and dies: no complete, no fail.
    BeginResult crashed = store.begin(new BeginRequest("demo-notifier", m.id(), LEASE, 5, null));
    IdempotentConsumer b = consumer((msg, a) -> calls.incrementAndGet(), 5);
    List<String> seen = new ArrayList<>();
    Outcome within = b.consume(m);
    seen.add(within.status().name());
    Thread.sleep(within.retryAfter().toMillis() + 20);
    Outcome after = b.consume(m);
    seen.add(after.status().name());
    seen.add(b.consume(m).status().name());
    boolean ok =
        crashed.claimed()
            && within.status() == Outcome.Status.IN_FLIGHT
            && after.status() == Outcome.Status.APPLIED
            && after.attempts() == 2
            && calls.get() == 1;
    return new Scenario(
        "crash mid-processing, takeover after the lease",
        seen,
        calls.get(),
        after.attempts(),
        ok,
        "in flight while the dead owner's lease ran; taken over at attempt 2");
  }

  Scenario staleOwnerFenced() {
    AtomicInteger effects = new AtomicInteger();
    Message m = message("stale");
    IdempotentConsumer b = consumer((msg, a) -> effects.incrementAndGet(), 5);
    List<String> seen = new ArrayList<>();
    AtomicInteger runsOfA = new AtomicInteger();
    IdempotentConsumer a =
        consumer(
            (msg, attempt) -> {
              runsOfA.incrementAndGet();
              Thread.sleep(LEASE.toMillis() + 50); // a GC pause longer than the lease
              seen.add("B:" + b.consume(msg).status().name());
            },
            5);
    boolean fenced = false;
    try {
      seen.add("A:" + a.consume(m).status().name());
    } catch (LeaseLostException e) {
      fenced = true;
      seen.add("A:LEASE_LOST");
    }
    InboxRecord rec = store.find("demo-notifier", m.id()).orElseThrow();
    return new Scenario(
        "stale owner fenced out",
        seen,
        runsOfA.get() + effects.get(),
        rec.attempts(),
        fenced && effects.get() == 1 && rec.attempts() == 2,
        "A paused past its lease, B took over and finished; A's completion was refused, so only"
            + " B's run counts");
  }

  Scenario poisonMessage() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger deadLetters = new AtomicInteger();
    IdempotentConsumer c =
        IdempotentConsumer.builder("demo-notifier", store)
            .handler(
                (m, a) -> {
                  calls.incrementAndGet();
                  throw new IllegalArgumentException("unparseable order");
                })
            .config(
                InboxConfig.custom()
                    .lease(LEASE)
                    .retryPolicy(
                        RetryPolicy.custom()
                            .maxAttempts(3)
                            .initialDelay(Duration.ofMillis(50))
                            .jitter(0)
                            .build())
                    .build())
            .deadLetterHandler((m, r) -> deadLetters.incrementAndGet())
            .build();
    List<String> seen = new ArrayList<>();
    Outcome last;
    do {
      last = c.consume(message("poison"));
      seen.add(last.status().name());
      Thread.sleep(last.retryAfter().toMillis() + 5);
    } while (last.status() != Outcome.Status.DEAD && seen.size() < 20);
    seen.add(c.consume(message("poison")).status().name());
    boolean ok =
        last.status() == Outcome.Status.DEAD
            && calls.get() == 3
            && deadLetters.get() == 1
            && seen.get(seen.size() - 1).equals("DEAD");
    return new Scenario(
        "poison message parked as DEAD",
        seen,
        calls.get(),
        last.attempts(),
        ok,
        "3 failed attempts, dead-letter path ran once, later deliveries report DEAD");
  }

  Scenario dedupWindowEdge() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IdempotentConsumer c = consumer((m, a) -> calls.incrementAndGet(), 5);
    List<String> seen = new ArrayList<>();
    seen.add(c.consume(message("window")).status().name());
    seen.add(c.consume(message("window")).status().name());
    Thread.sleep(20);
    long pruned = store.prune("demo-notifier", store.currentTime());
    seen.add("pruned " + pruned + " DONE record(s)");
    Outcome again = c.consume(message("window"));
    seen.add(again.status().name());
    boolean ok =
        seen.get(0).equals("APPLIED")
            && seen.get(1).equals("DUPLICATE")
            && pruned >= 1
            && seen.get(3).equals("APPLIED")
            && calls.get() == 2;
    return new Scenario(
        "dedup window edge after prune",
        seen,
        calls.get(),
        // The record made by the delivery after the prune: a new one, so its count restarted.
        again.attempts(),
        ok,
        "after its record was pruned the same id applied again: retention must outlast"
            + " redelivery");
  }
}
