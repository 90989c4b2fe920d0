package dev.archlab.inbox.testkit;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.InboxConfig;
import dev.archlab.inbox.MessageHandler;
import dev.archlab.inbox.RetryPolicy;
import dev.archlab.inbox.store.BeginRequest;
import dev.archlab.inbox.store.BeginResult;
import dev.archlab.inbox.store.InboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture and helpers of the store contract suite: a fresh store per test, a clock that moves
 * only when a test advances it, and shortcuts for consumers, configs, begins and races. Store
 * authors subclass {@link InboxStoreContractTest}, not this class.
 */
public abstract class InboxStoreContractSupport {

  /** For subclasses only. */
  protected InboxStoreContractSupport() {}

  /** The consumer name most scenarios use. */
  protected static final String CONSUMER = "notifier";

  /** A short lease; time moves only when a test advances it. */
  protected static final Duration LEASE = Duration.ofSeconds(30);

  private StoreFixture fixture;

  /**
   * A fresh, empty store. Called before every test; closed after it.
   *
   * @return a new fixture whose store holds no records
   * @throws Exception if the store could not be set up; the test fails with it
   */
  protected abstract StoreFixture newFixture() throws Exception;

  /**
   * Distinct ids in the stress test; a slow store may lower it.
   *
   * @return the id count, 2000 by default
   */
  protected int stressMessageCount() {
    return 2_000;
  }

  /**
   * Worker threads in the concurrency tests; a pooled store should have at least this many.
   *
   * @return the thread count, 8 by default
   */
  protected int workerThreads() {
    return 8;
  }

  @BeforeEach
  void openFixture() throws Exception {
    fixture = newFixture();
  }

  @AfterEach
  void closeFixture() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  /**
   * The store of the current test's fixture.
   *
   * @return the store under test
   */
  protected final InboxStore store() {
    return fixture.store();
  }

  /**
   * Moves the store's clock forward through the fixture.
   *
   * @param duration how far to move
   */
  protected final void advance(Duration duration) {
    fixture.advanceTime(duration);
  }

  /**
   * A consumer on the fixture's store with a deterministic retry policy (1 s, 2 s, 4 s ...).
   *
   * @param name the consumer name
   * @param handler the business effect
   * @return a builder with {@link #config config(5)} set, ready to build or adjust
   */
  protected final IdempotentConsumer.Builder consumer(String name, MessageHandler handler) {
    return IdempotentConsumer.builder(name, store()).handler(handler).config(config(5).build());
  }

  /**
   * Settings with the {@link #LEASE} and a jitter-free retry policy: 1 s after the first failure,
   * doubling, at most 1 min.
   *
   * @param maxAttempts attempts before a message is parked as DEAD
   * @return a builder with those settings
   */
  protected static InboxConfig.Builder config(int maxAttempts) {
    return InboxConfig.custom()
        .lease(LEASE)
        .retryPolicy(
            RetryPolicy.custom()
                .maxAttempts(maxAttempts)
                .initialDelay(Duration.ofSeconds(1))
                .multiplier(2)
                .maxDelay(Duration.ofMinutes(1))
                .jitter(0)
                .build());
  }

  /**
   * Begins message {@code id} for {@link #CONSUMER} with 5 attempts, the {@link #LEASE} and no
   * payload hash.
   *
   * @param id the message id
   * @return the store's decision
   */
  protected final BeginResult begin(String id) {
    return begin(CONSUMER, id, 5);
  }

  /**
   * Begins message {@code id} for {@code consumer} with the {@link #LEASE} and no payload hash.
   *
   * @param consumer the consumer name
   * @param id the message id
   * @param maxAttempts the attempt limit of a takeover
   * @return the store's decision
   */
  protected final BeginResult begin(String consumer, String id, int maxAttempts) {
    return store().begin(new BeginRequest(consumer, id, LEASE, maxAttempts, null));
  }

  /**
   * A handler that only counts its calls.
   *
   * @param calls incremented once per call
   * @return the handler
   */
  protected static MessageHandler counting(AtomicInteger calls) {
    return (message, attempt) -> calls.incrementAndGet();
  }

  /**
   * Runs {@code task} on {@code workers} threads released at the same moment and returns their
   * results in submission order, each waited for at most 30 s.
   *
   * @param <T> the task's result type
   * @param workers how many threads run the task
   * @param task what each thread runs
   * @return the results, one per worker, in submission order
   * @throws Exception if a task threw (wrapped in an {@link
   *     java.util.concurrent.ExecutionException}) or did not finish within 30 s ({@link
   *     java.util.concurrent.TimeoutException})
   */
  protected static <T> List<T> race(int workers, Callable<T> task) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return task.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(30, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
