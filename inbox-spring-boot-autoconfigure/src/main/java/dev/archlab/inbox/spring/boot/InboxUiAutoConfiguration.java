package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.micrometer.InboxMetrics;
import dev.archlab.inbox.operator.InboxOperations;
import dev.archlab.inbox.ui.OperatorUi;
import dev.archlab.inbox.ui.OutcomeCounts;
import dev.archlab.inbox.ui.UiSettings;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServlet;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The operator page of {@code inbox ui} (module {@code inbox-ui}) served by the application under
 * the Actuator base path, {@code <management.endpoints.web.base-path>/inbox-ui/} ({@code
 * /actuator/inbox-ui/} by default), when {@code inbox.ui.enabled=true}; off by default. Needs a
 * servlet web application, {@code inbox-ui} on the class path and an auto-configured store (JDBC or
 * Redis: the page reads the {@link InboxOperations} bean). Its safety rules are the page's own
 * (CSRF token per start, {@code inbox.ui.read-only}, {@code inbox.ui.token}); actions are logged
 * through the logger {@code dev.archlab.inbox.ui}. It is served on the application's port, not on a
 * separate management port.
 *
 * <p>When the application has a {@code MeterRegistry} and the Inbox meters ({@link
 * InboxMetricsAutoConfiguration}), the page's chart shows delivery outcomes over time read from the
 * {@code inbox.deliveries} counters, which every consumer the starter builds feeds through its
 * events; otherwise it shows the state counts the page samples itself.
 *
 * <p>When the application has an {@code Outbox} bean ({@code inbox.outbox.enabled=true}, {@link
 * InboxOutboxAutoConfiguration}), the page shows its backlog and DEAD rows and can put them back to
 * PENDING, under the same rules as the page's other actions.
 */
@AutoConfiguration(
    after = {
      InboxAutoConfiguration.class,
      InboxRedisAutoConfiguration.class,
      InboxMetricsAutoConfiguration.class,
      InboxOutboxAutoConfiguration.class
    },
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({OperatorUi.class, HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(InboxOperations.class)
@ConditionalOnProperty(prefix = "inbox.ui", name = "enabled", havingValue = "true")
public class InboxUiAutoConfiguration {

  private static final System.Logger LOG = System.getLogger("dev.archlab.inbox.ui");

  /** Creates the auto-configuration; Spring calls it. */
  public InboxUiAutoConfiguration() {}

  /**
   * The page's servlet, mapped under the Actuator base path.
   *
   * @param operations the store it reads and acts on
   * @param properties {@code inbox.ui.*}
   * @param environment for {@code management.endpoints.web.base-path}
   * @param outcomes the outcome source for the chart, when the application has the meters
   * @param outbox the outbox panel, when the application has an outbox
   * @return the registration
   */
  @Bean
  public ServletRegistrationBean<HttpServlet> inboxUiServlet(
      InboxOperations operations,
      InboxProperties properties,
      Environment environment,
      ObjectProvider<OutcomeCounts> outcomes,
      ObjectProvider<InboxUiOutbox> outbox) {
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
    OperatorUi page =
        new OperatorUi(operations, ui, Optional.ofNullable(outcomes.getIfAvailable()));
    InboxUiOutbox panel = outbox.getIfAvailable();
    if (panel != null) {
      page = panel.addTo(page);
    }
    ServletRegistrationBean<HttpServlet> registration =
        new ServletRegistrationBean<>(new InboxUiServlet(page), path, path + "/*");
    registration.setName("inboxUi");
    return registration;
  }

  /**
   * The page's outbox panel, when the application has inbox-outbox and an {@code Outbox} bean. In
   * its own class, with {@link InboxUiOutbox} the only types naming the outbox, so that the page
   * works without inbox-outbox on the class path.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.archlab.inbox.outbox.Outbox")
  @ConditionalOnBean(type = "dev.archlab.inbox.outbox.Outbox")
  static class OutboxPanelConfiguration {

    @Bean
    @ConditionalOnMissingBean
    InboxUiOutbox inboxUiOutbox(dev.archlab.inbox.outbox.Outbox outbox) {
      return new InboxUiOutbox(outbox);
    }
  }

  /**
   * The chart's outcome source, from the application's meter registry; only when the Inbox meters
   * are registered, so that a registry without them does not promise a chart it cannot fill. In its
   * own class so that the page works without Micrometer on the class path.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, InboxMetrics.class})
  @ConditionalOnBean({MeterRegistry.class, InboxMetrics.class})
  static class OutcomeChartConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutcomeCounts inboxUiOutcomeCounts(MeterRegistry registry) {
      return new MeterRegistryOutcomeCounts(registry);
    }
  }
}
