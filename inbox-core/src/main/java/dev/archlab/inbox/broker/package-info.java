/**
 * What every broker adapter shares, written once: which consumer runs the deliveries ({@link
 * dev.archlab.inbox.broker.ConsumeMode}), where a delivery's message id comes from ({@link
 * dev.archlab.inbox.broker.MessageIdSource}) and what the broker is to do with a delivery once it
 * was consumed ({@link dev.archlab.inbox.broker.BrokerDecision}), and where a tracing integration
 * follows each delivery ({@link dev.archlab.inbox.broker.DeliveryObserver}). An adapter ({@code
 * inbox-kafka}, {@code inbox-rabbitmq}, the Spring Boot starter's listener) reads its broker's
 * headers and translates a decision into its broker's terms; it never decides on an outcome itself.
 */
package dev.archlab.inbox.broker;
