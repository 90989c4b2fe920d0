package dev.archlab.inbox.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.Outcome.Status;
import dev.archlab.inbox.jdbc.dialect.SqliteDialect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three modes of the "choosing a mode" page on a SQLite file: each writes one ledger row per
 * new id and answers a redelivered id DUPLICATE without writing again.
 */
class ModesExampleTest {

  @TempDir Path dir;
  private ModesExample modes;

  @BeforeEach
  void createTables() throws Exception {
    modes = new ModesExample(SqliteDialect.dataSource(dir.resolve("guide.db")));
  }

  @Test
  void leaseModeAppliesEachIdOnceAndAnswersTheRepeatDuplicate() throws Exception {
    List<Message> twice = withRepeatOfFirst(Messages.payments("lease-", 3));

    assertThat(modes.lease(twice))
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.APPLIED, Status.APPLIED, Status.DUPLICATE);
    assertThat(modes.ledgerRows()).isEqualTo(3);
  }

  @Test
  void oneCommitModeAppliesEachIdOnceAndAnswersTheRepeatDuplicate() throws Exception {
    List<Message> twice = withRepeatOfFirst(Messages.payments("one-commit-", 3));

    assertThat(modes.oneCommit(twice))
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.APPLIED, Status.APPLIED, Status.DUPLICATE);
    assertThat(modes.ledgerRows()).isEqualTo(3);
  }

  @Test
  void batchModeAppliesTheNewIdsInOneCallAndTheRedeliveredBatchIsAllDuplicates() throws Exception {
    List<Message> batch = Messages.payments("batch-", 5);

    assertThat(modes.batch(batch)).extracting(Outcome::status).containsOnly(Status.APPLIED);
    assertThat(modes.batch(batch)).extracting(Outcome::status).containsOnly(Status.DUPLICATE);
    assertThat(modes.ledgerRows()).isEqualTo(5);
  }

  @Test
  void aMessageTheBatchHandlerRefusesByNameFailsAloneAndTheOthersApply() throws Exception {
    List<Message> batch =
        List.of(
            Messages.payment("checked-1", 100),
            Messages.payment("checked-2", 0),
            Messages.payment("checked-3", 300));

    List<Outcome> outcomes = modes.batchWithRefusals(batch);

    assertThat(outcomes)
        .extracting(Outcome::status)
        .containsExactly(Status.APPLIED, Status.FAILED, Status.APPLIED);
    assertThat(outcomes.get(1).lastError()).contains("amount must be positive");
    assertThat(modes.ledgerRows()).isEqualTo(2);
  }

  private static List<Message> withRepeatOfFirst(List<Message> messages) {
    List<Message> all = new ArrayList<>(messages);
    all.add(messages.get(0));
    return all;
  }
}
