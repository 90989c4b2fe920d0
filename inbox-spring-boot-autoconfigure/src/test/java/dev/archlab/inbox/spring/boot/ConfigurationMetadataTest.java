package dev.archlab.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata the annotation processor generates into this module's jar, which IDEs
 * read to complete {@code inbox.*}: every property is listed with a description.
 */
class ConfigurationMetadataTest {

  private static final String[] PROPERTIES = {
    "inbox.store",
    "inbox.redis.url",
    "inbox.redis.cluster",
    "inbox.redis.key-prefix",
    "inbox.redis.buckets",
    "inbox.redis.retention",
    "inbox.table",
    "inbox.create-schema",
    "inbox.prune-batch-size",
    "inbox.consumers",
    "inbox.prune.enabled",
    "inbox.prune.interval",
    "inbox.health.stuck-leases-threshold",
    "inbox.health.dead-threshold",
    "inbox.health.down-on-threshold",
    "inbox.metrics.enabled",
    "inbox.metrics.stats-interval",
    "inbox.kafka.listeners",
    "inbox.ui.enabled",
    "inbox.ui.read-only",
    "inbox.ui.token",
    "inbox.outbox.enabled",
    "inbox.outbox.table",
    "inbox.outbox.create-schema",
    "inbox.outbox.relay.enabled",
    "inbox.outbox.relay.bootstrap-servers",
    "inbox.outbox.relay.batch-size",
    "inbox.outbox.relay.poll-interval",
    "inbox.outbox.relay.retention",
    "inbox.outbox.health.dead-threshold",
    "inbox.outbox.health.oldest-pending-threshold",
    "inbox.outbox.health.down-on-threshold",
  };

  @Test
  void everyInboxPropertyIsListedWithADescription() throws IOException {
    String metadata = inboxMetadata();
    for (String property : PROPERTIES) {
      // One JSON object (no nested braces) holding both this name and a non-empty description.
      Pattern entry =
          Pattern.compile(
              "\\{(?=[^{}]*\"name\"\\s*:\\s*\""
                  + Pattern.quote(property)
                  + "\")(?=[^{}]*\"description\"\\s*:\\s*\"[^\"]+\")[^{}]*\\}");
      assertThat(entry.matcher(metadata).find())
          .as("%s is in the metadata with a description", property)
          .isTrue();
    }
  }

  @Test
  void descriptionsArePlainTextNotJavadocTags() throws IOException {
    assertThat(inboxMetadata()).doesNotContain("{@");
  }

  // Other jars on the class path carry metadata files too; ours is the one naming inbox.table.
  private static String inboxMetadata() throws IOException {
    Enumeration<URL> files =
        ConfigurationMetadataTest.class
            .getClassLoader()
            .getResources("META-INF/spring-configuration-metadata.json");
    while (files.hasMoreElements()) {
      try (InputStream in = files.nextElement().openStream()) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (text.contains("\"inbox.table\"")) {
          return text;
        }
      }
    }
    throw new AssertionError("no spring-configuration-metadata.json lists inbox.table");
  }
}
