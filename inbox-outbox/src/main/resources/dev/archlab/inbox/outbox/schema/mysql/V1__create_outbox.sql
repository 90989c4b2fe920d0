-- Outbox table for MySQL 8. Usable as a Flyway/Liquibase migration as it is.
-- Times are DATETIME(6) in UTC (written from UTC_TIMESTAMP(6)). Ids and keys compare byte for byte
-- with NO PAD, as the inbox's do. seq orders the rows of one (destination, message_key).
-- due_idx: is anything due? order_idx: unsent rows in seq order (their sent_at is NULL, which
-- the sent_ck constraint guarantees), and sent rows by age for the prune.
CREATE TABLE IF NOT EXISTS inbox_outbox (
    seq             BIGINT        NOT NULL AUTO_INCREMENT,
    message_id      VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
    destination     VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
    message_key     VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NULL,
    payload         LONGBLOB      NULL,
    headers         BLOB          NULL,
    state           VARCHAR(10)   NOT NULL,
    attempts        INT           NOT NULL,
    next_attempt_at DATETIME(6)   NOT NULL,
    created_at      DATETIME(6)   NOT NULL,
    sent_at         DATETIME(6)   NULL,
    last_error      VARCHAR(1000) CHARACTER SET utf8mb4 NULL,
    CONSTRAINT inbox_outbox_pk PRIMARY KEY (seq),
    CONSTRAINT inbox_outbox_message_id_uq UNIQUE (message_id),
    CONSTRAINT inbox_outbox_state_ck CHECK (state IN ('PENDING', 'SENT', 'DEAD')),
    CONSTRAINT inbox_outbox_attempts_ck CHECK (attempts >= 0),
    CONSTRAINT inbox_outbox_sent_ck CHECK (state = 'SENT' OR sent_at IS NULL),
    INDEX inbox_outbox_due_idx (state, next_attempt_at),
    INDEX inbox_outbox_order_idx (state, sent_at, seq)
) ENGINE = InnoDB;
