package dev.archlab.inbox.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@code inbox-outbox} is an optional dependency: the page must serve, and answer its outbox routes
 * with {@code {"available":false}}, in an application that does not have it. Checked in a class
 * loader holding this module and inbox-core but not inbox-outbox (nor anything else of the test
 * class path), which also records every class this module's code loaded.
 */
class WithoutOutboxOnTheClassPathTest {

  /** Loads inbox-ui and inbox-core classes itself, and remembers the names it was asked for. */
  private static final class IsolatedLoader extends URLClassLoader {
    final Set<String> requested = ConcurrentHashMap.newKeySet();

    IsolatedLoader(URL[] urls) {
      super("without-outbox", urls, ClassLoader.getPlatformClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      requested.add(name);
      return super.loadClass(name, resolve);
    }
  }

  /** The class path entries of inbox-ui's and inbox-core's main classes (directories or jars). */
  private static URL[] uiAndCore() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String normalized = entry.replace('\\', '/');
      boolean ui = normalized.endsWith("inbox-ui/target/classes");
      boolean core =
          normalized.endsWith("inbox-core/target/classes")
              || normalized.matches(".*/inbox-core-[^/]*\\.jar");
      if (ui || core) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    assertThat(urls).as("inbox-ui and inbox-core on the test class path").hasSize(2);
    return urls.toArray(URL[]::new);
  }

  @Test
  void thePageServesAndItsOutboxRoutesAreUnavailableWithoutInboxOutbox() throws Exception {
    try (IsolatedLoader loader = new IsolatedLoader(uiAndCore())) {
      Class<?> operations = loader.loadClass("dev.archlab.inbox.operator.InboxOperations");
      // The outbox routes and the page never touch the store, so a store that refuses every call
      // shows it.
      Object refusingStore =
          Proxy.newProxyInstance(
              loader,
              new Class<?>[] {operations},
              (proxy, method, args) -> {
                throw new UnsupportedOperationException(method.getName());
              });
      Class<?> settingsType = loader.loadClass("dev.archlab.inbox.ui.UiSettings");
      Object settings = settingsType.getMethod("ofDefaults").invoke(null);
      Class<?> uiType = loader.loadClass("dev.archlab.inbox.ui.OperatorUi");
      Constructor<?> constructor = uiType.getConstructor(operations, settingsType);
      Object ui = constructor.newInstance(refusingStore, settings);

      Class<?> requestType = loader.loadClass("dev.archlab.inbox.ui.UiRequest");
      Constructor<?> request =
          requestType.getConstructor(
              String.class, String.class, Map.class, Map.class, Map.class, String.class);
      Method handle = uiType.getMethod("handle", requestType);
      Method bodyText = loader.loadClass("dev.archlab.inbox.ui.UiResponse").getMethod("bodyText");
      String csrf = (String) settingsType.getMethod("csrfToken").invoke(settings);

      Object page =
          handle.invoke(ui, request.newInstance("GET", "/", Map.of(), Map.of(), Map.of(), "t"));
      assertThat((String) bodyText.invoke(page)).contains("id=\"outbox\" hidden");
      Object status =
          handle.invoke(
              ui, request.newInstance("GET", "/api/outbox", Map.of(), Map.of(), Map.of(), "t"));
      assertThat((String) bodyText.invoke(status)).isEqualTo("{\"available\":false}");
      Object rows =
          handle.invoke(
              ui,
              request.newInstance(
                  "GET", "/api/outbox/rows", Map.of("state", "DEAD"), Map.of(), Map.of(), "t"));
      assertThat((String) bodyText.invoke(rows)).isEqualTo("{\"available\":false}");
      Object retry =
          handle.invoke(
              ui,
              request.newInstance(
                  "POST",
                  "/api/outbox/retry-dead",
                  Map.of(),
                  Map.of("id", "pay-2", "csrf", csrf),
                  Map.of(),
                  "t"));
      assertThat((String) bodyText.invoke(retry)).contains("this page was given no outbox");

      // Reflection on OperatorUi (as a framework introspecting a bean does) may load OutboxPanel,
      // named in withOutbox, but nothing of inbox-outbox is ever asked for.
      assertThat(uiType.getDeclaredMethods()).isNotEmpty();
      assertThat(loader.requested)
          .contains("dev.archlab.inbox.ui.OperatorUi")
          .noneMatch(name -> name.startsWith("dev.archlab.inbox.outbox."));
      assertThatThrownBy(() -> loader.loadClass("dev.archlab.inbox.outbox.Outbox"))
          .isInstanceOf(ClassNotFoundException.class);
    }
  }
}
