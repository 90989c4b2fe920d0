/**
 * Micrometer meters for Inbox consumers, without Spring. {@link
 * dev.archlab.inbox.micrometer.InboxMetrics} is a {@code MeterBinder}: bind it to a registry, give
 * its {@link dev.archlab.inbox.micrometer.InboxMetrics#listener() listener} to each consumer's
 * builder and call {@code consume} through its {@link
 * dev.archlab.inbox.micrometer.InboxMetrics#timer(String) timer}. Store gauges come from an {@link
 * dev.archlab.inbox.micrometer.InboxStatsSource}, read at most once per configured interval. Every
 * meter is listed in docs/METRICS.md. {@link dev.archlab.inbox.micrometer.InboxObservations} traces
 * deliveries as Observations (OpenTelemetry through Micrometer Tracing's bridge), through a broker
 * adapter's observer or around a {@code consume} call; see docs/guide/metrics-and-health.md.
 */
package dev.archlab.inbox.micrometer;
