/**
 * Benchmarks of Inbox against a bare map, raw SQL, Apache Camel and Spring Integration: JMH for the
 * in-memory store ({@link dev.archlab.inbox.bench.MemoryStoreBenchmark}), a load harness on
 * embedded PostgreSQL for the JDBC systems ({@link dev.archlab.inbox.bench.LoadHarness}), scale
 * runs on a pre-filled table ({@link dev.archlab.inbox.bench.ScaleRun}), the Kafka run of {@code
 * KafkaInboxLoop} against bare at-least-once loops on a real broker ({@code KafkaRun}, with each
 * consumer in a JVM of its own), the Redis run of {@code RedisInboxStore} against the lease mode
 * and a bare {@code SET NX} on a real {@code redis-server} ({@code RedisRun}) and the report writer
 * that turns their CSVs into {@code docs/BENCHMARKS.md} ({@link
 * dev.archlab.inbox.bench.ReportWriter}). Entry point for all of them: {@link
 * dev.archlab.inbox.bench.BenchMain}.
 */
package dev.archlab.inbox.bench;
