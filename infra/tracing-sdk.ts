/**
 * The SDK part of infra/tracing.ts, required only when traces are asked for: the NodeSDK, its
 * exporters and the instrumentations cost about half a second and 25 MB at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { trace, type Attributes, type ProxyTracerProvider, type Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { findRepoRoot } from './env-file';
import { redactUrlAttribute, URL_ATTRIBUTES } from './url-redaction';

export interface Tracing {
  /** The detected resource and the SDK's span processor: the worker hands both to the workflow span exporter. */
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
  /** Sends what is buffered and stops (on shutdown). */
  shutdown(): Promise<void>;
}

/**
 * Rewrites the URL attributes the instrumentation just set on a span (they are set when the span
 * starts, before any hook runs) without query values or token-like path segments
 * (infra/url-redaction.ts): a span must not carry the credentials some URLs hold.
 */
function redactUrlAttributes(span: Span): void {
  // The SDK's span keeps its attributes; a non-recording span has none.
  const attributes = (span as unknown as { attributes?: Attributes }).attributes;
  if (!attributes) return;
  for (const key of URL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === 'string') span.setAttribute(key, redactUrlAttribute(key, value));
  }
}

/** Probes and scrapes, every few seconds from the orchestrator: no trace of their own. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

export function startTracingSdk(defaultServiceName: string): Tracing {
  const sdk = new NodeSDK({
    // The detected resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) is merged over this one.
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaultServiceName, [ATTR_SERVICE_VERSION]: serviceVersion() }),
    // Metrics are Prometheus (/metrics): the SDK's default OTLP metrics exporter stays off unless
    // OTEL_METRICS_EXPORTER asks for it, as it did before the SDK's 3.x line made otlp the default.
    ...(process.env.OTEL_METRICS_EXPORTER?.trim() ? {} : { metricReaders: [] }),
    // Outgoing calls and queries only inside a traced operation (a request, an activity): the
    // dispatcher's and outbox's polls, the SDK metrics scrape, start-up checks would otherwise each
    // make a trace of their own. Statements without their values.
    instrumentations: [
      new HttpInstrumentation({
        requireParentforOutgoingSpans: true,
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
        requestHook: redactUrlAttributes,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true, requestHook: redactUrlAttributes }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { ...registeredPipeline(), shutdown: () => sdk.shutdown() };
}

/**
 * The resource and span processor of the provider that NodeSDK built from the environment and
 * registered. From the SDK's 2.x line on the provider keeps both private (no getters), and NodeSDK
 * builds the processors from OTEL_* only when it is not handed any, so they are read from the
 * fields of the pinned version; a release that renames them fails here at start, not silently.
 */
function registeredPipeline(): Pick<Tracing, 'resource' | 'spanProcessor'> {
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as { _resource?: Resource; _activeSpanProcessor?: SpanProcessor };
  const { _resource: resource, _activeSpanProcessor: spanProcessor } = provider;
  if (!resource || typeof spanProcessor?.onEnd !== 'function') {
    throw new Error('OpenTelemetry: the registered tracer provider has no span processor and resource where this SDK version keeps them');
  }
  return { resource, spanProcessor };
}

/** The version in package.json, from source or compiled code alike. */
function serviceVersion(): string {
  const file = path.join(findRepoRoot(__dirname), 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}
