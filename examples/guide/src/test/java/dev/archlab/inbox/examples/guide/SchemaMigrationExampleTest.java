package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.IdempotentConsumer;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.jdbc.JdbcInboxStore;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upgrading guide's claim, checked on H2 and SQLite: the shipped V1 file, found at the
 * documented classpath path and run as a plain script, gives a table the store uses as is.
 */
class SchemaMigrationExampleTest {

  @TempDir Path dir;

  @Test
  void shippedDdlRunAsAScriptGivesTheStoreItsTableOnH2() throws Exception {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:guide-migration;DB_CLOSE_DELAY=-1");
    assertMigratedTableWorks(h2);
  }

  @Test
  void shippedDdlRunAsAScriptGivesTheStoreItsTableOnSqlite() throws Exception {
    assertMigratedTableWorks(SqliteDialect.dataSource(dir.resolve("migrated.db")));
  }

  @Test
  void theDdlFilesAreWhereTheGuideSaysWithFlywayVersionedNames() {
    for (String database : new String[] {"postgresql", "mariadb", "mysql", "sqlite", "h2"}) {
      String path = "dev/archlab/inbox/jdbc/schema/" + database + "/V1__create_inbox.sql";
      assertThat(JdbcInboxStore.class.getClassLoader().getResource(path)).as(path).isNotNull();
    }
  }

  private static void assertMigratedTableWorks(DataSource dataSource) throws Exception {
    JdbcInboxStore store = JdbcInboxStore.builder(dataSource).build();
    assertThat(store.schemaExists()).as("no table before the migration").isFalse();

    assertThat(SchemaMigrationExample.migrate(dataSource)).isTrue();

    try (IdempotentConsumer consumer =
        IdempotentConsumer.builder("migrated", store).handler((message, attempt) -> {}).build()) {
      assertThat(consumer.consume(Message.of("m-1")).status()).isEqualTo(Status.APPLIED);
      assertThat(consumer.consume(Message.of("m-1")).status()).isEqualTo(Status.DUPLICATE);
    }
  }
}
