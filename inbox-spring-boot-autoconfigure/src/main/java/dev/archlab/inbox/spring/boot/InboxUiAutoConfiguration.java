package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.ui.OperatorUi;
import dev.archlab.inbox.ui.UiSettings;
import jakarta.servlet.http.HttpServlet;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The operator page of {@code inbox ui} (module {@code inbox-ui}) served by the application under
 * the Actuator base path, {@code <management.endpoints.web.base-path>/inbox-ui/} ({@code
 * /actuator/inbox-ui/} by default), when {@code inbox.ui.enabled=true}; off by default. Needs a
 * servlet web application, {@code inbox-ui} on the class path and the JDBC store. Its safety rules
 * are the page's own (CSRF token per start, {@code inbox.ui.read-only}, {@code inbox.ui.token});
 * actions are logged through the logger {@code dev.archlab.inbox.ui}. It is served on the
 * application's port, not on a separate management port.
 */
@AutoConfiguration(after = InboxAutoConfiguration.class)
@ConditionalOnClass({OperatorUi.class, HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(JdbcInboxStore.class)
@ConditionalOnProperty(prefix = "inbox.ui", name = "enabled", havingValue = "true")
public class InboxUiAutoConfiguration {

  private static final System.Logger LOG = System.getLogger("dev.archlab.inbox.ui");

  /** Creates the auto-configuration; Spring calls it. */
  public InboxUiAutoConfiguration() {}

  /**
   * The page's servlet, mapped under the Actuator base path.
   *
   * @param store the store it reads and acts on
   * @param properties {@code inbox.ui.*}
   * @param environment for {@code management.endpoints.web.base-path}
   * @return the registration
   */
  @Bean
  public ServletRegistrationBean<HttpServlet> inboxUiServlet(
      JdbcInboxStore store, InboxProperties properties, Environment environment) {
    InboxProperties.Ui settings = properties.getUi();
    UiSettings ui =
        UiSettings.custom()
            .readOnly(settings.isReadOnly())
            .accessToken(
                settings.getToken() == null || settings.getToken().isBlank()
                    ? null
                    : settings.getToken())
            .actionLog(line -> LOG.log(System.Logger.Level.INFO, line))
            .build();
    String base = environment.getProperty("management.endpoints.web.base-path", "/actuator");
    String path = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/inbox-ui";
    ServletRegistrationBean<HttpServlet> registration =
        new ServletRegistrationBean<>(
            new InboxUiServlet(new OperatorUi(new JdbcInboxOperations(store), ui)),
            path,
            path + "/*");
    registration.setName("inboxUi");
    return registration;
  }
}
