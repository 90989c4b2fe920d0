package dev.archlab.inbox.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A publisher for relay tests that need a publish to fail on purpose (a broker cannot be told to
 * fail one record): it records what it was given and answers what the test scripts, by default
 * SENT; tests of real publishing use the Kafka publisher on a real broker.
 */
final class RecordingPublisher implements OutboxPublisher {

  final List<OutboxRow> published = new CopyOnWriteArrayList<>();
  private final Function<OutboxRow, PublishResult> answer;

  RecordingPublisher() {
    this(row -> PublishResult.sent());
  }

  RecordingPublisher(Function<OutboxRow, PublishResult> answer) {
    this.answer = answer;
  }

  @Override
  public List<PublishResult> publish(List<OutboxRow> rows) {
    List<PublishResult> out = new ArrayList<>();
    for (OutboxRow row : rows) {
      published.add(row);
      out.add(answer.apply(row));
    }
    return out;
  }

  @Override
  public void close() {}
}
