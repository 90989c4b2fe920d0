/**
 * The store SPI: the atomic primitives (begin, complete, fail, mark dead, extend, prune, find,
 * list) a storage backend implements. Every implementation must pass the contract suite of {@code
 * inbox-testkit}.
 */
package dev.archlab.inbox.store;
