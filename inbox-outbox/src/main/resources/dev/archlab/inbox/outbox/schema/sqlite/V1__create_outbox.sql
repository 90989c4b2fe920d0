-- Outbox table for SQLite 3.37+ (STRICT tables). Usable as a Flyway/Liquibase migration as it is.
-- Times are INTEGER milliseconds since 1970-01-01 UTC, written by the database's clock.
CREATE TABLE IF NOT EXISTS inbox_outbox (
    seq             INTEGER  PRIMARY KEY AUTOINCREMENT,
    message_id      TEXT     NOT NULL,
    destination     TEXT     NOT NULL,
    message_key     TEXT,
    payload         BLOB,
    headers         BLOB,
    state           TEXT     NOT NULL,
    attempts        INTEGER  NOT NULL,
    next_attempt_at INTEGER  NOT NULL,
    created_at      INTEGER  NOT NULL,
    sent_at         INTEGER,
    last_error      TEXT,
    CONSTRAINT inbox_outbox_message_id_uq UNIQUE (message_id),
    CONSTRAINT inbox_outbox_state_ck CHECK (state IN ('PENDING', 'SENT', 'DEAD')),
    CONSTRAINT inbox_outbox_attempts_ck CHECK (attempts >= 0),
    CONSTRAINT inbox_outbox_sent_ck CHECK (state = 'SENT' OR sent_at IS NULL)
) STRICT;
-- due_idx: is anything due? order_idx: unsent rows in seq order (their sent_at is NULL, which
-- the sent_ck constraint guarantees), and sent rows by age for the prune.
CREATE INDEX IF NOT EXISTS inbox_outbox_due_idx ON inbox_outbox (state, next_attempt_at);
CREATE INDEX IF NOT EXISTS inbox_outbox_order_idx ON inbox_outbox (state, sent_at, seq);
