/**
 * OpenTelemetry traces, off unless the standard OTEL variables ask for them: with
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, spans go over OTLP/HTTP
 * to that collector, named by OTEL_SERVICE_NAME (default industrial-ops-api / -worker). One trace
 * follows a request from the API (W3C `traceparent` in and out) through the Temporal client call
 * into the workflow and its activities (@temporalio/interceptors-opentelemetry carries the context
 * in Temporal headers). Tests pass their own in-memory exporter.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export interface Tracing {
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
  /** Sends what is buffered and stops (on shutdown). */
  shutdown(): Promise<void>;
}

let installed = false;

/** Whether this process exports traces (installTracing registered a provider). */
export const tracingInstalled = (): boolean => installed;

/** Whether the environment asks for traces (the OTel SDK's own variables). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Registers the process-wide tracer provider, context manager and W3C propagator. Answers null
 * (and registers nothing: every tracer stays a no-op) when traces are not asked for.
 */
export function installTracing(defaultServiceName: string, options: { exporter?: SpanExporter; env?: NodeJS.ProcessEnv } = {}): Tracing | null {
  const env = options.env ?? process.env;
  if (!options.exporter && !tracingRequested(env)) return null;
  const resource = new Resource({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName });
  // A test's exporter gets each span at once; a collector gets them in batches.
  const spanProcessor = options.exporter ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable(), propagator: new W3CTraceContextPropagator() });
  installed = true;
  return {
    resource,
    spanProcessor,
    async shutdown() {
      installed = false;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
