package dev.archlab.inbox.ui;

/** A request the page refuses, with the status and the message the client is told. */
final class UiRequestException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;

  UiRequestException(int status, String message) {
    super(message);
    this.status = status;
  }

  int status() {
    return status;
  }
}
