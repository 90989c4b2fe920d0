package dev.archlab.inbox.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.Claim;
import dev.archlab.inbox.InboxRecord;
import dev.archlab.inbox.RecordState;
import dev.archlab.inbox.StoreUnavailableException;
import dev.archlab.inbox.store.BeginResult.Kind;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every method of the {@link InboxStore} interface, found by reflection so that a method added to
 * the interface later (a default one too) is checked without editing this test, reaches the
 * delegate once, with the same arguments, and its result or exception comes back unchanged.
 */
class ForwardingInboxStoreTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final InboxRecord RECORD =
      new InboxRecord("orders", "m-1", RecordState.DONE, 1, null, T0, T0, null, null, null);

  /** One distinct value per parameter type the interface uses; a new type fails loudly below. */
  private static final Map<Class<?>, Object> ARGUMENTS =
      Map.of(
          BeginRequest.class,
          new BeginRequest("orders", "m-1", Duration.ofSeconds(30), 3, "h"),
          Claim.class,
          new Claim("orders", "m-1", 2, T0),
          byte[].class,
          new byte[] {1, 2, 3},
          String.class,
          "an argument",
          Duration.class,
          Duration.ofSeconds(7),
          Instant.class,
          T0.plusSeconds(11),
          RecordState.class,
          RecordState.PROCESSING,
          int.class,
          42);

  /** One distinct value per return type, so the test can tell the delegate's result came back. */
  private static final Map<Class<?>, Object> RESULTS =
      Map.of(
          BeginResult.class, BeginResult.of(Kind.DUPLICATE, RECORD, T0),
          InboxRecord.class, RECORD,
          Claim.class, new Claim("orders", "m-1", 5, T0.plusSeconds(99)),
          long.class, 1234L,
          Optional.class, Optional.of(RECORD),
          List.class, List.of(RECORD, RECORD),
          Instant.class, T0.plusSeconds(3600));

  private record Call(Method method, Object[] arguments) {}

  /** A delegate that records each call and answers from {@link #RESULTS}, or throws if asked. */
  private static final class RecordingDelegate {
    final List<Call> calls = new ArrayList<>();
    RuntimeException failure;

    InboxStore asStore() {
      return (InboxStore)
          Proxy.newProxyInstance(
              InboxStore.class.getClassLoader(),
              new Class<?>[] {InboxStore.class},
              (proxy, method, args) -> {
                if (method.getDeclaringClass() == Object.class) {
                  return method.invoke(this, args);
                }
                calls.add(new Call(method, args == null ? new Object[0] : args));
                if (failure != null) {
                  throw failure;
                }
                return resultFor(method);
              });
    }
  }

  private static final class PlainForwarder extends ForwardingInboxStore {
    PlainForwarder(InboxStore delegate) {
      super(delegate);
    }
  }

  private static List<Method> storeMethods() {
    List<Method> methods =
        Arrays.stream(InboxStore.class.getMethods())
            .filter(m -> !Modifier.isStatic(m.getModifiers()))
            .toList();
    assertThat(methods).as("the interface has methods to check").isNotEmpty();
    return methods;
  }

  private static Object[] argumentsFor(Method method) {
    return Arrays.stream(method.getParameterTypes())
        .map(
            type -> {
              assertThat(ARGUMENTS)
                  .as("a sample argument of type %s for %s; add one", type, method)
                  .containsKey(type);
              return ARGUMENTS.get(type);
            })
        .toArray();
  }

  private static Object resultFor(Method method) {
    assertThat(RESULTS)
        .as("a sample result of type %s for %s; add one", method.getReturnType(), method)
        .containsKey(method.getReturnType());
    return RESULTS.get(method.getReturnType());
  }

  private static Object invoke(Method method, InboxStore store, Object[] arguments)
      throws Throwable {
    try {
      return method.invoke(store, arguments);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void everyMethodReachesTheDelegateOnceWithTheSameArgumentsAndItsResultComesBack()
      throws Throwable {
    for (Method method : storeMethods()) {
      RecordingDelegate delegate = new RecordingDelegate();
      Object[] arguments = argumentsFor(method);

      Object result = invoke(method, new PlainForwarder(delegate.asStore()), arguments);

      assertThat(delegate.calls).as("calls reaching the delegate for %s", method).hasSize(1);
      Call call = delegate.calls.get(0);
      assertThat(call.method()).as("the method the delegate saw for %s", method).isEqualTo(method);
      for (int i = 0; i < arguments.length; i++) {
        assertThat(call.arguments()[i]).as("argument %d of %s", i, method).isEqualTo(arguments[i]);
        if (!method.getParameterTypes()[i].isPrimitive()) {
          assertThat(call.arguments()[i]).as("argument %d of %s", i, method).isSameAs(arguments[i]);
        }
      }
      assertThat(result).as("the result of %s", method).isEqualTo(resultFor(method));
      if (!method.getReturnType().isPrimitive()) {
        assertThat(result).as("the result of %s", method).isSameAs(resultFor(method));
      }
    }
  }

  @Test
  void everyMethodLetsTheDelegatesExceptionThroughUnchanged() {
    for (Method method : storeMethods()) {
      RecordingDelegate delegate = new RecordingDelegate();
      delegate.failure = new StoreUnavailableException("unreachable in " + method.getName(), null);
      Object[] arguments = argumentsFor(method);

      assertThatThrownBy(() -> invoke(method, new PlainForwarder(delegate.asStore()), arguments))
          .as("the exception of %s", method)
          .isSameAs(delegate.failure);
      assertThat(delegate.calls).as("calls reaching the delegate for %s", method).hasSize(1);
    }
  }

  @Test
  void anOverrideDecoratesOneCallAndTheRestStillForward() {
    RecordingDelegate delegate = new RecordingDelegate();
    InboxStore clockShifted =
        new ForwardingInboxStore(delegate.asStore()) {
          @Override
          public Instant currentTime() {
            return delegate().currentTime().plusSeconds(1);
          }
        };

    assertThat(clockShifted.currentTime()).isEqualTo(T0.plusSeconds(3601));
    assertThat(clockShifted.prune(T0)).isEqualTo(1234L);
    assertThat(delegate.calls)
        .extracting(c -> c.method().getName())
        .containsExactly("currentTime", "prune");
  }

  @Test
  void refusesANullDelegate() {
    assertThatThrownBy(() -> new PlainForwarder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("delegate");
  }
}
