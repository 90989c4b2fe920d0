-- Inbox dedup table for MySQL 8. Usable as a Flyway/Liquibase migration as it is.
-- Times are DATETIME(6) in UTC (written from UTC_TIMESTAMP(6)). Ids compare byte for byte with
-- NO PAD (utf8mb4_0900_bin): a PAD SPACE collation would treat 'a' and 'a ' as one key.
CREATE TABLE IF NOT EXISTS inbox (
    consumer     VARCHAR(128)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
    message_id   VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
    state        VARCHAR(10)   NOT NULL,
    attempts     INT           NOT NULL,
    lease_until  DATETIME(6)   NULL,
    created_at   DATETIME(6)   NOT NULL,
    updated_at   DATETIME(6)   NOT NULL,
    last_error   VARCHAR(1000) CHARACTER SET utf8mb4 NULL,
    payload_hash CHAR(64)      NULL,
    result       MEDIUMBLOB    NULL,
    CONSTRAINT inbox_pk PRIMARY KEY (consumer, message_id),
    CONSTRAINT inbox_state_ck CHECK (state IN ('PROCESSING', 'DONE', 'DEAD')),
    CONSTRAINT inbox_attempts_ck CHECK (attempts >= 1),
    INDEX inbox_state_updated_idx (state, updated_at)
) ENGINE = InnoDB;
