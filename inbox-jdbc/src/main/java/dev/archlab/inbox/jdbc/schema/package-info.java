/**
 * The inbox table's schema: {@link dev.archlab.inbox.jdbc.schema.InboxSchema} reads whether the
 * table is there and creates what is missing from the versioned DDL shipped in the jar ({@code
 * dev/archlab/inbox/jdbc/schema/<dialect>/V1__create_inbox.sql}, where Flyway and Liquibase find it
 * too). Creation never keeps the table's other writers waiting longer than one lock timeout;
 * processes that start together create it once ({@link
 * dev.archlab.inbox.jdbc.schema.SchemaBusyException} when another one holds the lock for too long,
 * {@link dev.archlab.inbox.jdbc.schema.SchemaMissingException} when a statement finds no table).
 */
package dev.archlab.inbox.jdbc.schema;
