package dev.archlab.inbox.broker;

import dev.archlab.inbox.Outcome;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.function.Supplier;

/** {@link DeliveryObserver#guarded}: every call of the observer behind a catch that logs. */
final class GuardedObserver implements DeliveryObserver {

  private static final System.Logger LOG = System.getLogger(GuardedObserver.class.getName());

  private final DeliveryObserver observer;

  GuardedObserver(DeliveryObserver observer) {
    this.observer = observer;
  }

  @Override
  public Observed received(Received delivery) {
    Observed observed = call("received", () -> observer.received(delivery), Observed.NONE);
    return observed == null || observed == Observed.NONE
        ? Observed.NONE
        : new GuardedObserved(observed);
  }

  static <T> T call(String what, Supplier<T> call, T otherwise) {
    try {
      T value = call.get();
      return value == null ? otherwise : value;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "delivery observer failed in " + what + "; ignored", e);
      return otherwise;
    }
  }

  static void run(String what, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "delivery observer failed in " + what + "; ignored", e);
    }
  }

  private record GuardedObserved(Observed observed) implements Observed {
    @Override
    public Scope openScope() {
      Scope scope = call("openScope", observed::openScope, Scope.NONE);
      return scope == Scope.NONE ? scope : () -> run("Scope.close", scope::close);
    }

    @Override
    public void outcome(Outcome outcome) {
      run("outcome", () -> observed.outcome(outcome));
    }

    @Override
    public void failed(Throwable error) {
      run("failed", () -> observed.failed(error));
    }

    @Override
    public void rejected(String reason) {
      run("rejected", () -> observed.rejected(reason));
    }

    @Override
    public Publish publishing(Purpose purpose, String destination) {
      Publish publish =
          call("publishing", () -> observed.publishing(purpose, destination), Publish.NONE);
      return publish == Publish.NONE ? publish : new GuardedPublish(publish);
    }

    @Override
    public void end() {
      run("end", observed::end);
    }
  }

  private record GuardedPublish(Publish publish) implements Publish {
    @Override
    public Map<String, String> headers() {
      return call("headers", () -> Map.copyOf(publish.headers()), Map.of());
    }

    @Override
    public void published() {
      run("published", publish::published);
    }

    @Override
    public void failed(Throwable error) {
      run("Publish.failed", () -> publish.failed(error));
    }
  }
}
