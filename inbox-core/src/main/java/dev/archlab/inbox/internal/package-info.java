/**
 * What the project's own consumers and stores share and users do not program against: the consume
 * steps of the state machine, argument checks and consumer settings. Not API: may change freely.
 * {@code module-info} exports it only to {@code inbox-jdbc} and {@code inbox-redis}, and a test
 * fails when any other module of the project imports it.
 */
package dev.archlab.inbox.internal;
