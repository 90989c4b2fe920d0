package dev.archlab.inbox.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/**
 * OpenTelemetry behind Micrometer Tracing's bridge, wired as an application wires it: W3C trace
 * context propagation, the tracing handlers (receiver, sender, default) and a meter handler on one
 * {@link ObservationRegistry}. Finished spans land in an in-memory exporter, synchronously as each
 * span ends.
 */
final class OtelTracing implements AutoCloseable {

  final InMemorySpanExporter spans = InMemorySpanExporter.create();
  final MeterRegistry meters = new SimpleMeterRegistry();
  final ObservationRegistry registry = ObservationRegistry.create();
  final Tracer tracer;
  private final SdkTracerProvider provider;

  OtelTracing() {
    provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(provider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    io.opentelemetry.api.trace.Tracer otel = sdk.getTracer("inbox-tests");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    tracer =
        new OtelTracer(
            otel, current, event -> {}, new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator = new OtelPropagator(sdk.getPropagators(), otel);
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)))
        .observationHandler(new DefaultMeterObservationHandler(meters));
  }

  /** The trace and span id current on this thread, as "trace/span"; "none" when no span is. */
  String current() {
    Span span = tracer.currentSpan();
    return span == null ? "none" : span.context().traceId() + "/" + span.context().spanId();
  }

  /** The one finished span called {@code name}. */
  SpanData span(String name) {
    List<SpanData> named =
        spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    if (named.size() != 1) {
      throw new AssertionError(
          "expected one span '" + name + "', finished: " + spans.getFinishedSpanItems());
    }
    return named.get(0);
  }

  @Override
  public void close() {
    provider.close();
  }
}
