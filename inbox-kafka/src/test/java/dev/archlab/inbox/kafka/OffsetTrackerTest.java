package dev.archlab.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {

  @Test
  void nothingToCommitBeforeAnyRecordFinished() {
    OffsetTracker t = new OffsetTracker();
    assertThat(t.toCommit()).isEmpty();
    t.unfinished(5);
    assertThat(t.toCommit()).isEmpty();
  }

  @Test
  void commitsTheOffsetAfterTheLastFinishedRecord() {
    OffsetTracker t = new OffsetTracker();
    t.finished(0);
    t.finished(1);
    assertThat(t.toCommit()).isEqualTo(OptionalLong.of(2));
  }

  @Test
  void gapsInOffsetsAreFollowed() {
    // Compaction and transaction markers leave gaps: the next record's offset is what counts.
    OffsetTracker t = new OffsetTracker();
    t.finished(3);
    t.finished(9);
    assertThat(t.toCommit()).isEqualTo(OptionalLong.of(10));
  }

  @Test
  void neverCommitsPastTheFirstUnfinishedRecord() {
    OffsetTracker t = new OffsetTracker();
    t.finished(0);
    t.unfinished(1);
    assertThat(t.toCommit()).isEqualTo(OptionalLong.of(1));
    assertThatThrownBy(() -> t.finished(2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("offset 2")
        .hasMessageContaining("1 is not");
    assertThat(t.toCommit()).isEqualTo(OptionalLong.of(1));
    assertThat(t.blockedAt()).isEqualTo(OptionalLong.of(1));
  }

  @Test
  void theBlockLiftsWhenTheRecordFinishesOnItsRedelivery() {
    OffsetTracker t = new OffsetTracker();
    t.unfinished(4);
    t.unfinished(4); // read again, still unfinished
    t.finished(4);
    t.finished(5);
    assertThat(t.blockedAt()).isEmpty();
    assertThat(t.toCommit()).isEqualTo(OptionalLong.of(6));
  }

  @Test
  void anEarlierUnfinishedRecordMovesTheBlockBack() {
    OffsetTracker t = new OffsetTracker();
    t.unfinished(7);
    t.unfinished(3);
    assertThat(t.blockedAt()).isEqualTo(OptionalLong.of(3));
  }

  @Test
  void aCommittedOffsetIsNotOfferedAgain() {
    OffsetTracker t = new OffsetTracker();
    t.finished(0);
    t.committed(1);
    assertThat(t.toCommit()).isEmpty();
    t.finished(1);
    assertThat(t.toCommit()).isEqualTo(OptionalLong.of(2));
  }

  @Test
  void refusesNegativeOffsets() {
    OffsetTracker t = new OffsetTracker();
    assertThatThrownBy(() -> t.finished(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> t.unfinished(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
