/** The in-memory store: thread-safe, per-key atomic, for tests, demos and single processes. */
package dev.archlab.inbox.memory;
