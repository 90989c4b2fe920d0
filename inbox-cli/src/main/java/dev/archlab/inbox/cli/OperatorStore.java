package dev.archlab.inbox.cli;

import dev.archlab.inbox.ui.InboxOperations;

/**
 * The operator operations ({@link InboxOperations}: what {@code status}, {@code list}, {@code
 * show}, {@code release}, {@code retry-dead}, {@code prune} and the {@code ui} page need) on
 * whatever holds the records: a JDBC table ({@link JdbcOperatorStore}) or Redis ({@link
 * RedisOperatorStore}). One implementation per store kind serves both the commands and the page.
 * Closing it releases the connections it opened.
 */
interface OperatorStore extends InboxOperations, AutoCloseable {

  @Override
  void close();
}
