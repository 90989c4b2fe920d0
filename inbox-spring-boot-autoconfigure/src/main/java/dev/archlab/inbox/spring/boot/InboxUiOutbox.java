package dev.archlab.inbox.spring.boot;

import dev.archlab.inbox.outbox.Outbox;
import dev.archlab.inbox.ui.OperatorUi;
import dev.archlab.inbox.ui.OutboxPanel;
import java.util.Objects;

/**
 * The application's outbox, for the operator page's outbox panel: a bean only when inbox-outbox is
 * on the class path and there is an {@link Outbox} bean, so that {@link InboxUiAutoConfiguration}
 * itself names no outbox type and serves the page without inbox-outbox.
 */
final class InboxUiOutbox {

  private final Outbox outbox;

  InboxUiOutbox(Outbox outbox) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
  }

  /** {@code page} with the outbox panel. */
  OperatorUi addTo(OperatorUi page) {
    return page.withOutbox(OutboxPanel.of(outbox));
  }
}
