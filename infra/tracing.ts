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
import type { Tracing } from './tracing-sdk';

export type { Tracing } from './tracing-sdk';

let installed = false;

/** Whether this process exports traces (startTracing started the SDK). */
export const tracingInstalled = (): boolean => installed;

/** Whether the environment asks for traces (the OTel SDK's own variables). */
function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the SDK for this process (null, and nothing loaded or registered, when traces are not
 * asked for): every tracer stays a no-op then and no module is patched.
 */
export function startTracing(defaultServiceName: string): Tracing | null {
  if (!tracingRequested()) return null;
  // Synchronous, before the caller's other imports; the SDK is loaded only here (infra/tracing-sdk.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  const tracing = startTracingSdk(defaultServiceName);
  installed = true;
  return {
    ...tracing,
    async shutdown() {
      installed = false;
      await tracing.shutdown();
    },
  };
}
