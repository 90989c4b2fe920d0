package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.outbox.OutboxRelay;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the application's {@link OutboxRelay} while the context runs: started after the context is
 * refreshed, closed (its round finished, its publisher closed) when the context stops, before the
 * data source goes away.
 */
public final class OutboxRelayLifecycle implements SmartLifecycle {

  private final OutboxRelay relay;
  private volatile boolean running;

  OutboxRelayLifecycle(OutboxRelay relay) {
    this.relay = Objects.requireNonNull(relay, "relay");
  }

  @Override
  public synchronized void start() {
    if (!running) {
      relay.start();
      running = true;
    }
  }

  @Override
  public synchronized void stop() {
    if (running) {
      relay.close();
      running = false;
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
