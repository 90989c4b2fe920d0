package dev.archlab.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.archlab.inbox.InvalidArgumentException;
import dev.archlab.inbox.jdbc.consumer.BatchItemFailedException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BatchItemFailedExceptionTest {

  @Test
  @DisplayName("names ids without repeats, keeps its cause, says both in its message")
  void carriesIdsAndCause() {
    IllegalArgumentException cause = new IllegalArgumentException("unknown account");
    BatchItemFailedException e = new BatchItemFailedException(List.of("m-2", "m-5", "m-2"), cause);
    assertThat(e.failedMessageIds()).containsExactlyInAnyOrder("m-2", "m-5");
    assertThat(e.getCause()).isSameAs(cause);
    assertThat(e.getMessage()).contains("m-2").contains("m-5").contains("unknown account");
  }

  @Test
  @DisplayName("refuses no ids, a null id and a missing cause")
  void refusesBadInput() {
    Exception cause = new IllegalStateException("x");
    assertThatThrownBy(() -> new BatchItemFailedException(List.of(), cause))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("at least one");
    assertThatThrownBy(() -> new BatchItemFailedException(null, cause))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> new BatchItemFailedException(Arrays.asList("a", null), cause))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("must not be null");
    assertThatThrownBy(() -> new BatchItemFailedException(List.of("a"), null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("cause");
  }
}
