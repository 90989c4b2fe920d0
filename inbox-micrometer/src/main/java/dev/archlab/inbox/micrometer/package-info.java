/**
 * Micrometer meters for Inbox consumers, without Spring. {@link
 * dev.archlab.inbox.micrometer.InboxMetrics} is a {@code MeterBinder}: bind it to a registry, give
 * its {@link dev.archlab.inbox.micrometer.InboxMetrics#listener() listener} to each consumer's
 * builder and call {@code consume} through its {@link
 * dev.archlab.inbox.micrometer.InboxMetrics#timer(String) timer}. Store gauges come from an {@link
 * dev.archlab.inbox.micrometer.InboxStatsSource}, read at most once per configured interval. Every
 * meter is listed in docs/METRICS.md.
 */
package dev.archlab.inbox.micrometer;
