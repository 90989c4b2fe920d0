-- Inbox dedup table for PostgreSQL 12+. Usable as a Flyway/Liquibase migration as it is.
-- One row per (consumer, message_id); attempts is also the fencing token.
CREATE TABLE IF NOT EXISTS inbox (
    consumer     VARCHAR(128)  NOT NULL,
    message_id   VARCHAR(255)  NOT NULL,
    state        VARCHAR(10)   NOT NULL,
    attempts     INTEGER       NOT NULL,
    lease_until  TIMESTAMPTZ,
    created_at   TIMESTAMPTZ   NOT NULL,
    updated_at   TIMESTAMPTZ   NOT NULL,
    last_error   VARCHAR(1000),
    payload_hash CHAR(64),
    result       BYTEA,
    CONSTRAINT inbox_pk PRIMARY KEY (consumer, message_id),
    CONSTRAINT inbox_state_ck CHECK (state IN ('PROCESSING', 'DONE', 'DEAD')),
    CONSTRAINT inbox_attempts_ck CHECK (attempts >= 1)
);
-- Prune walks DONE rows by age; operators list PROCESSING and DEAD rows.
CREATE INDEX IF NOT EXISTS inbox_state_updated_idx ON inbox (state, updated_at);
