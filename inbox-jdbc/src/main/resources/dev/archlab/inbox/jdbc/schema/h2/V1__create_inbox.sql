-- Inbox dedup table for H2 2.x. Usable as a Flyway/Liquibase migration as it is.
CREATE TABLE IF NOT EXISTS inbox (
    consumer     VARCHAR(128)  NOT NULL,
    message_id   VARCHAR(255)  NOT NULL,
    state        VARCHAR(10)   NOT NULL,
    attempts     INTEGER       NOT NULL,
    lease_until  TIMESTAMP(6) WITH TIME ZONE,
    created_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    updated_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    last_error   VARCHAR(1000),
    payload_hash CHAR(64),
    result       VARBINARY(65536),
    CONSTRAINT inbox_pk PRIMARY KEY (consumer, message_id),
    CONSTRAINT inbox_state_ck CHECK (state IN ('PROCESSING', 'DONE', 'DEAD')),
    CONSTRAINT inbox_attempts_ck CHECK (attempts >= 1)
);
CREATE INDEX IF NOT EXISTS inbox_state_updated_idx ON inbox (state, updated_at);
