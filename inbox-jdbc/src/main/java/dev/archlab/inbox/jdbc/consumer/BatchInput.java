package dev.archlab.inbox.jdbc.consumer;

import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.PayloadMismatchException;
import dev.archlab.inbox.internal.ArgumentChecks;
import dev.archlab.inbox.internal.ConsumeSteps;
import dev.archlab.inbox.internal.ConsumerSettings;
import dev.archlab.inbox.store.BeginRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of deliveries prepared for the batch consumers: one begin request per delivery, the
 * position of each id's first copy, and the repeats, which are answered from their first copy's
 * outcome. Immutable.
 */
final class BatchInput {

  private final List<Message> messages;
  private final List<BeginRequest> requests;
  private final List<Integer> firsts;
  private final int[] firstOf;

  private BatchInput(
      List<Message> messages, List<BeginRequest> requests, List<Integer> firsts, int[] firstOf) {
    this.messages = messages;
    this.requests = requests;
    this.firsts = firsts;
    this.firstOf = firstOf;
  }

  /**
   * Checks that neither the list nor a message is null.
   *
   * @throws dev.archlab.inbox.InvalidArgumentException naming the null
   */
  static void requireMessages(List<Message> messages) {
    ArgumentChecks.requireValue(messages, "messages");
    for (int i = 0; i < messages.size(); i++) {
      ArgumentChecks.requireValue(messages.get(i), "messages[" + i + "]");
    }
  }

  /**
   * Prepares {@code messages} (checked by {@link #requireMessages}) for the consumer {@code
   * settings} describes.
   *
   * @throws PayloadMismatchException if fingerprints are on and two copies of one id carry
   *     different payloads: alone, the later copy would be refused against its first copy's record
   */
  static BatchInput of(ConsumerSettings settings, List<Message> messages) {
    List<BeginRequest> requests = new ArrayList<>(messages.size());
    Map<String, String> firstHash = new HashMap<>();
    Map<String, Integer> firstIndex = new HashMap<>();
    List<Integer> firsts = new ArrayList<>();
    int[] firstOf = new int[messages.size()];
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      BeginRequest request = settings.beginRequest(m);
      String hash = request.payloadHash();
      if (hash != null && !hash.equals(firstHash.computeIfAbsent(m.id(), id -> hash))) {
        throw new PayloadMismatchException(settings.name(), m.id());
      }
      requests.add(request);
      Integer first = firstIndex.putIfAbsent(m.id(), i);
      firstOf[i] = first == null ? i : first;
      if (first == null) {
        firsts.add(i);
      }
    }
    return new BatchInput(
        List.copyOf(messages), List.copyOf(requests), List.copyOf(firsts), firstOf);
  }

  Message message(int i) {
    return messages.get(i);
  }

  BeginRequest request(int i) {
    return requests.get(i);
  }

  /** Every delivery's begin request, in delivery order, repeats included. */
  List<BeginRequest> requests() {
    return requests;
  }

  /** The positions of each id's first copy, in delivery order. */
  List<Integer> firsts() {
    return firsts;
  }

  int size() {
    return messages.size();
  }

  /**
   * Fills in the outcome of every repeated delivery from its first copy's, which must be set.
   *
   * @param outcomes one slot per delivery
   * @param steps reports each repeat's event
   */
  void answerRepeats(Outcome[] outcomes, ConsumeSteps steps) {
    answerRepeats(outcomes, steps, firstOf.length);
  }

  /** {@link #answerRepeats(Outcome[], ConsumeSteps)} for the deliveries before {@code end}. */
  void answerRepeats(Outcome[] outcomes, ConsumeSteps steps, int end) {
    for (int i = 0; i < end; i++) {
      if (firstOf[i] != i) {
        outcomes[i] = steps.repeated(messages.get(i), outcomes[firstOf[i]]);
      }
    }
  }
}
