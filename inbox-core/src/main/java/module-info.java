/**
 * Inbox's core: the API users program against, the SPI store authors implement, and what broker
 * adapters share. Exported to everyone:
 *
 * <ul>
 *   <li>{@code dev.archlab.inbox}: the consumer API ({@code IdempotentConsumer}, {@code Message},
 *       {@code Outcome}, configuration, events, exceptions);
 *   <li>{@code dev.archlab.inbox.broker}: what broker adapters share (modes, the outcome-to-broker
 *       decision, message-id sources);
 *   <li>{@code dev.archlab.inbox.memory}: the in-memory store;
 *   <li>{@code dev.archlab.inbox.operator}: what operators read and do on any store (the page, the
 *       CLI, meters and health use it);
 *   <li>{@code dev.archlab.inbox.store}: the store SPI (the atomic primitives a store implements).
 * </ul>
 *
 * <p>{@code dev.archlab.inbox.internal} holds the consume steps, argument checks and consumer
 * settings the project's own stores and consumers share; it is exported only to them and is not
 * API. Outside the module path (on the class path) nothing enforces this: a test checks that no
 * other module of the project imports it.
 */
// The internal package is exported to modules that are not on inbox-core's own module path.
@SuppressWarnings("module")
module dev.archlab.inbox {
  exports dev.archlab.inbox;
  exports dev.archlab.inbox.broker;
  exports dev.archlab.inbox.memory;
  exports dev.archlab.inbox.operator;
  exports dev.archlab.inbox.store;
  exports dev.archlab.inbox.internal to
      dev.archlab.inbox.jdbc,
      dev.archlab.inbox.redis;
}
