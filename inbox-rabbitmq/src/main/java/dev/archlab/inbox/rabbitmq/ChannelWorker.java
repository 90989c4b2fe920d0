package dev.archlab.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.ShutdownSignalException;
import dev.archlab.inbox.ConsumeInterceptor;
import dev.archlab.inbox.Message;
import dev.archlab.inbox.Outcome;
import dev.archlab.inbox.broker.BrokerDecision;
import dev.archlab.inbox.broker.ConsumeMode;
import dev.archlab.inbox.broker.DeliveryObserver;
import dev.archlab.inbox.broker.DeliveryObserver.Observed;
import dev.archlab.inbox.broker.MessageIdSource;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One channel and the thread that works it: the channel's consumer hands deliveries to a local
 * queue; the thread takes what has arrived (up to the mode's batch size), consumes it, settles each
 * delivery (a confirmed retry or dead-letter copy where needed) and only then acks. Deliveries of
 * one channel are settled in order, so a batch is acked with one {@code multiple} ack. What each
 * outcome means is the shared {@link BrokerDecision}; this class translates it into acks and
 * copies. Each delivery is reported to the consumer's {@link DeliveryObserver}: observed from
 * before its turn in the consumer (current during it) until it is settled, the copy published for
 * it a child of its observation.
 */
final class ChannelWorker implements Runnable {

  private static final System.Logger LOG = System.getLogger(ChannelWorker.class.getName());

  /** What every worker of one consumer shares. */
  record Parts(
      ConsumeMode mode,
      Duration linger,
      MessageIdSource<Delivery> ids,
      MissingIdAction missingId,
      RabbitTopology topology,
      RabbitInboxListener listener,
      int prefetch,
      Duration confirmTimeout,
      Duration errorBackoff,
      Duration minRetryDelay,
      Duration maxRetryDelay,
      DeliveryObserver observer) {}

  private final Parts parts;
  private final Connection connection;
  private final BlockingQueue<Delivery> arrived = new LinkedBlockingQueue<>();
  private volatile boolean stopping;
  private volatile Channel channel;
  private volatile ConfirmedPublisher publisher;
  private String consumerTag;

  ChannelWorker(Parts parts, Connection connection) {
    this.parts = parts;
    this.connection = connection;
  }

  /** Opens the channel and registers the consumer. */
  void open() throws IOException {
    Channel c = connection.createChannel();
    c.basicQos(parts.prefetch());
    publisher = new ConfirmedPublisher(c, parts.confirmTimeout());
    channel = c;
    consumerTag =
        c.basicConsume(
            parts.topology().workQueue(),
            false,
            new DefaultConsumer(c) {
              @Override
              public void handleDelivery(
                  String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                arrived.add(new Delivery(envelope, props, body));
              }
            });
  }

  /** Stops taking deliveries; the running batch finishes. */
  void stop() {
    stopping = true;
    Channel c = channel;
    String tag = consumerTag;
    if (c != null && tag != null && c.isOpen()) {
      try {
        c.basicCancel(tag);
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.DEBUG, "cancel failed; closing the connection ends the consumer", e);
      }
    }
  }

  @Override
  public void run() {
    List<Delivery> batch = new ArrayList<>();
    while (!stopping) {
      try {
        reopenIfChannelFailed();
        Delivery first = arrived.poll(100, TimeUnit.MILLISECONDS);
        if (first == null || stopping) {
          continue; // a delivery taken while stopping stays unacked: the broker requeues it
        }
        batch.clear();
        batch.add(first);
        fill(batch);
        process(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // Never let the thread die: the deliveries stay unacked and the broker redelivers them.
        LOG.log(Level.ERROR, "channel worker failed; continuing", e);
        pause(parts.errorBackoff());
      }
    }
  }

  /**
   * Adds what has arrived, up to the mode's batch size; with a linger, waits up to that long for a
   * full batch.
   */
  private void fill(List<Delivery> batch) throws InterruptedException {
    int max = parts.mode().maxBatch();
    arrived.drainTo(batch, max - batch.size());
    long deadline = System.nanoTime() + parts.linger().toNanos();
    while (batch.size() < max && !stopping) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      Delivery next = arrived.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return;
      }
      batch.add(next);
      arrived.drainTo(batch, max - batch.size());
    }
  }

  /**
   * A channel closed by a channel error (not by a lost connection, which automatic recovery
   * handles) never comes back by itself: open a new one. Its unacked deliveries were requeued.
   */
  private void reopenIfChannelFailed() {
    Channel c = channel;
    if (c == null || c.isOpen() || !connection.isOpen()) {
      return;
    }
    ShutdownSignalException reason = c.getCloseReason();
    if (reason == null || reason.isHardError()) {
      return;
    }
    LOG.log(Level.WARNING, "channel closed (" + reason.getMessage() + "); opening a new one");
    arrived.clear();
    pause(parts.errorBackoff());
    try {
      open();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "could not open a new channel; will try again", e);
    }
  }

  private void process(List<Delivery> deliveries) {
    List<Settled> settled = new ArrayList<>(deliveries.size());
    int i = 0;
    while (i < deliveries.size()) {
      Delivery d = deliveries.get(i);
      notifyListener(() -> parts.listener().received(d));
      Prepared p = prepare(d);
      if (p.message == null) {
        Observed observed = observe(d, null);
        observed.rejected(p.rejected.reason());
        try {
          settled.add(missingId(d, p.rejected, observed));
        } finally {
          observed.end();
        }
        i++;
        continue;
      }
      List<Prepared> group = new ArrayList<>();
      group.add(p);
      while (i + group.size() < deliveries.size()) {
        Delivery next = deliveries.get(i + group.size());
        Prepared q = prepare(next);
        if (q.message == null) {
          break;
        }
        notifyListener(() -> parts.listener().received(next));
        group.add(q);
      }
      consumeGroup(group, settled);
      i += group.size();
    }
    acknowledge(settled);
  }

  private void consumeGroup(List<Prepared> group, List<Settled> settled) {
    List<Message> messages = new ArrayList<>(group.size());
    for (Prepared p : group) {
      messages.add(p.message);
    }
    Observed[] observed = new Observed[group.size()];
    List<Outcome> outcomes;
    try {
      outcomes = parts.mode().consume(messages, interceptor(group, observed));
    } catch (RuntimeException e) {
      if (group.size() > 1) {
        for (Observed o : observed) {
          if (o != null) {
            o.failed(e);
            o.end();
          }
        }
        // Nothing tells which message failed: go one by one (those that committed come back
        // DUPLICATE), so a payload mismatch or a store error stays with its own delivery.
        for (Prepared p : group) {
          consumeGroup(List.of(p), settled);
        }
        return;
      }
      Delivery d = group.get(0).delivery;
      BrokerDecision decision = BrokerDecision.ofFailedCall(e);
      if (!decision.finishes()) {
        LOG.log(
            Level.WARNING,
            "consuming delivery " + d.getEnvelope().getDeliveryTag() + " failed; retrying later",
            e);
      }
      Observed o = observed[0] != null ? observed[0] : observe(d, group.get(0).message.id());
      o.failed(e);
      try {
        settled.add(settle(d, decision, o));
      } finally {
        o.end();
      }
      return;
    }
    for (int k = 0; k < group.size(); k++) {
      Delivery d = group.get(k).delivery;
      if (k >= outcomes.size()) {
        if (observed[k] != null) {
          observed[k].end(); // its turn began, but the mode gave it no answer
        }
        settled.add(settle(d, BrokerDecision.unanswered(), Observed.NONE));
        continue;
      }
      Outcome o = outcomes.get(k);
      if (observed[k] == null) {
        // The mode ran the group as one unit, without a turn per delivery: observed afterwards.
        observed[k] = observe(d, group.get(k).message.id());
      }
      observed[k].outcome(o);
      notifyListener(() -> parts.listener().outcome(d, o));
      try {
        settled.add(settle(d, BrokerDecision.of(o), observed[k]));
      } finally {
        observed[k].end();
      }
    }
  }

  /**
   * Runs each delivery's turn with its observation current, the observation started as the turn
   * begins, and in a one-commit batch each call of its handler, the observation started at the
   * first; a consumer without an observer runs the mode without an interceptor.
   */
  private ConsumeInterceptor interceptor(List<Prepared> group, Observed[] observed) {
    if (parts.observer() == DeliveryObserver.NONE) {
      return ConsumeInterceptor.NONE;
    }
    List<Message> messages = new ArrayList<>(group.size());
    for (Prepared p : group) {
      messages.add(p.message);
    }
    return DeliveryObserver.interceptorFor(
        messages, observed, k -> observe(group.get(k).delivery, group.get(k).message.id()));
  }

  /** Starts observing a delivery; {@code messageId} null when it has no valid one. */
  private Observed observe(Delivery d, String messageId) {
    if (parts.observer() == DeliveryObserver.NONE) {
      return Observed.NONE;
    }
    Map<String, String> attributes = new HashMap<>();
    attributes.put(
        "messaging.rabbitmq.message.delivery_tag", Long.toString(d.getEnvelope().getDeliveryTag()));
    if (d.getEnvelope().getRoutingKey() != null) {
      attributes.put("messaging.rabbitmq.destination.routing_key", d.getEnvelope().getRoutingKey());
    }
    Map<String, Object> h = d.getProperties() == null ? null : d.getProperties().getHeaders();
    return parts
        .observer()
        .received(
            new DeliveryObserver.Received(
                "rabbitmq",
                parts.topology().workQueue(),
                parts.mode().consumerName(),
                messageId,
                attributes,
                key -> {
                  Object v = h == null ? null : h.get(key);
                  return v instanceof LongString || v instanceof String ? v.toString() : null;
                }));
  }

  /**
   * Translates the decision into an ack, a confirmed dead-letter copy or a confirmed retry copy.
   */
  private Settled settle(Delivery d, BrokerDecision decision, Observed observed) {
    return switch (decision.action()) {
      case ACKNOWLEDGE -> Settled.ack(d, null);
      case DEAD_LETTER -> deadLetter(d, decision.reason(), decision.attempts(), observed);
      case REDELIVER_WHEN_RELEASED, REDELIVER_FOR_RETRY, REDELIVER_AFTER_ERROR ->
          retry(d, decision.redeliverAfter(parts.errorBackoff()), observed);
    };
  }

  /** A delivery without a valid id: dead-lettered as decided, or dropped if the user said so. */
  private Settled missingId(Delivery d, BrokerDecision rejected, Observed observed) {
    if (parts.missingId() == MissingIdAction.DISCARD) {
      return Settled.ack(d, () -> parts.listener().noMessageId(d, rejected.reason()));
    }
    return settle(d, rejected, observed);
  }

  private Settled retry(Delivery d, Duration delay, Observed observed) {
    long ttl = Settlement.ttlMillis(delay, parts.minRetryDelay(), parts.maxRetryDelay());
    String queue = parts.topology().retryQueue();
    DeliveryObserver.Publish publish = observed.publishing(DeliveryObserver.Purpose.RETRY, queue);
    try {
      publisher.publish("", queue, Settlement.retryCopy(d, ttl, publish.headers()), d.getBody());
      publish.published();
    } catch (BrokerException e) {
      publish.failed(e);
      return publishFailed(d, e);
    }
    return Settled.ack(d, () -> parts.listener().retryScheduled(d, Duration.ofMillis(ttl)));
  }

  private Settled deadLetter(Delivery d, String reason, int attempts, Observed observed) {
    RabbitTopology t = parts.topology();
    DeliveryObserver.Publish publish =
        observed.publishing(DeliveryObserver.Purpose.DEAD_LETTER, t.deadLetterExchange());
    try {
      publisher.publish(
          t.deadLetterExchange(),
          t.workQueue(),
          Settlement.deadLetterCopy(
              d, t.workQueue(), parts.mode().consumerName(), attempts, reason, publish.headers()),
          d.getBody());
      publish.published();
    } catch (BrokerException e) {
      publish.failed(e);
      return publishFailed(d, e);
    }
    return Settled.ack(d, () -> parts.listener().deadLettered(d, reason));
  }

  private Settled publishFailed(Delivery d, BrokerException e) {
    LOG.log(Level.WARNING, e.getMessage() + "; the delivery is not acked", e);
    notifyListener(() -> parts.listener().publishFailed(d, e));
    return new Settled(d, false, null);
  }

  /**
   * Acks the settled deliveries: one {@code multiple} ack for the last when all of them were
   * settled (every earlier tag of this channel is settled already, since the worker goes in order),
   * else one by one, requeueing those whose copy was not confirmed after the error backoff. An ack
   * on a channel that was lost meanwhile is dropped by the client; the broker redelivers.
   */
  private void acknowledge(List<Settled> settled) {
    int acked = 0;
    while (acked < settled.size() && settled.get(acked).ack) {
      acked++;
    }
    try {
      if (acked > 0) {
        // One ack for the settled run up to the first delivery that is not: multiple covers
        // every earlier tag of this channel, and those are all settled.
        long last = settled.get(acked - 1).delivery.getEnvelope().getDeliveryTag();
        channel.basicAck(last, acked > 1);
      }
      if (acked < settled.size()) {
        pause(parts.errorBackoff());
        for (Settled s : settled.subList(acked, settled.size())) {
          long tag = s.delivery.getEnvelope().getDeliveryTag();
          if (s.ack) {
            channel.basicAck(tag, false);
          } else {
            channel.basicNack(tag, false, true);
          }
        }
      }
    } catch (IOException | ShutdownSignalException e) {
      LOG.log(Level.INFO, "ack not sent (" + e + "); the broker redelivers, answered DUPLICATE");
      return;
    }
    for (Settled s : settled) {
      if (s.afterAck != null) {
        notifyListener(s.afterAck);
      }
    }
  }

  private Prepared prepare(Delivery d) {
    MessageIdSource.Identified identified =
        parts
            .ids()
            .identify(
                d, id -> new Message(id, parts.topology().workQueue(), d.getBody(), headers(d)));
    return new Prepared(d, identified.message(), identified.rejected());
  }

  /** String and long-string headers as text; tables and arrays (such as x-death) left out. */
  private static Map<String, String> headers(Delivery d) {
    Map<String, Object> h = d.getProperties() == null ? null : d.getProperties().getHeaders();
    Map<String, String> out = new HashMap<>();
    if (h != null) {
      h.forEach(
          (k, v) -> {
            if (v instanceof LongString || v instanceof String || v instanceof Number) {
              out.put(k, v.toString());
            }
          });
    }
    return out;
  }

  private void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void notifyListener(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "listener threw", e);
    }
  }

  /** A delivery with its message, or with the dead-letter decision when it has no valid id. */
  private record Prepared(Delivery delivery, Message message, BrokerDecision rejected) {}

  /** A delivery's end: ack (after which {@code afterAck} tells the listener) or requeue. */
  private record Settled(Delivery delivery, boolean ack, Runnable afterAck) {
    static Settled ack(Delivery d, Runnable afterAck) {
      return new Settled(d, true, afterAck);
    }
  }
}
