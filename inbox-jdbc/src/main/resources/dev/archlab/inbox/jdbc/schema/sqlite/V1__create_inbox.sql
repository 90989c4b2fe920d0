-- Inbox dedup table for SQLite 3.37+ (STRICT tables). Usable as a Flyway/Liquibase migration as it is.
-- One row per (consumer, message_id); attempts is also the fencing token.
-- Times are INTEGER milliseconds since 1970-01-01 UTC, written by the database's clock.
CREATE TABLE IF NOT EXISTS inbox (
    consumer     TEXT     NOT NULL,
    message_id   TEXT     NOT NULL,
    state        TEXT     NOT NULL,
    attempts     INTEGER  NOT NULL,
    lease_until  INTEGER,
    created_at   INTEGER  NOT NULL,
    updated_at   INTEGER  NOT NULL,
    last_error   TEXT,
    payload_hash TEXT,
    result       BLOB,
    CONSTRAINT inbox_pk PRIMARY KEY (consumer, message_id),
    CONSTRAINT inbox_state_ck CHECK (state IN ('PROCESSING', 'DONE', 'DEAD')),
    CONSTRAINT inbox_attempts_ck CHECK (attempts >= 1)
) STRICT;
-- Prune walks DONE rows by age; operators list PROCESSING and DEAD rows.
CREATE INDEX IF NOT EXISTS inbox_state_updated_idx ON inbox (state, updated_at);
