/**
 * OpenTelemetry traces through the SDK's NodeSDK, off unless the SDK's own variables ask for them
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Everything else is the
 * SDK's: the exporter from OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (http/protobuf by default,
 * http/json, grpc), the batch processor's OTEL_BSP_* settings, the resource from its detectors
 * (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, host and process), the propagators from
 * OTEL_PROPAGATORS. This module adds a default service.name per process and service.version from
 * package.json, both of which the environment overrides.
 *
 * Instrumentations: incoming and outgoing HTTP (the server span of each request, webhooks, S3),
 * undici (fetch: channel deliveries, language models), pg (every query of a traced operation).
 * They patch modules as these are first required, so each process starts tracing from its
 * instrumentation entry (api/instrumentation.ts, workers/instrumentation.ts), imported before
 * anything else. One trace follows a request from the API through the Temporal client call into
 * the workflow and its activities (@temporalio/interceptors-opentelemetry, Temporal headers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { findRepoRoot } from './env-file';

export interface Tracing {
  /** The detected resource and the SDK's span processor: the worker hands both to the workflow span exporter. */
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
  /** Sends what is buffered and stops (on shutdown). */
  shutdown(): Promise<void>;
}

let installed = false;

/** Whether this process exports traces (startTracing started the SDK). */
export const tracingInstalled = (): boolean => installed;

/** Whether the environment asks for traces (the OTel SDK's own variables). */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Probes and scrapes, every few seconds from the orchestrator: no trace of their own. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/**
 * Starts the SDK for this process (null, and nothing registered, when traces are not asked for):
 * every tracer stays a no-op then and no module is patched.
 */
export function startTracing(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): Tracing | null {
  if (!tracingRequested(env)) return null;
  const sdk = new NodeSDK({
    // The detected resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) is merged over this one.
    resource: new Resource({ [ATTR_SERVICE_NAME]: defaultServiceName, [ATTR_SERVICE_VERSION]: serviceVersion() }),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]) }),
      new UndiciInstrumentation(),
      // Only queries inside a traced operation (a request, an activity): the dispatcher's and the
      // outbox's polls would otherwise each make a trace. Statements without their values.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  installed = true;
  // NodeSDK keeps its provider to itself; the registered one is it (the SDK's 1.x line exposes both getters).
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as BasicTracerProvider;
  return {
    resource: provider.resource as Resource,
    spanProcessor: provider.getActiveSpanProcessor(),
    async shutdown() {
      installed = false;
      await sdk.shutdown();
    },
  };
}

/** The version in package.json, from source or compiled code alike. */
function serviceVersion(): string {
  const file = path.join(findRepoRoot(__dirname), 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}
