/**
 * The sink that brings workflow spans out of the workflow sandbox into this process's OpenTelemetry
 * pipeline. Temporal's workflow interceptors (@temporalio/interceptors-opentelemetry, the release
 * that matches the Temporal SDK) build their spans inside the sandbox with the SDK's 1.x line and
 * send them in its span shape (`parentSpanId`, `instrumentationLibrary`); the current SDK line reads
 * `parentSpanContext` and `instrumentationScope`. Passed as they are, the workflow spans would lose
 * their parent, and with it the link from the client's call to the workflow's handler. This sink
 * takes the place of the package's makeWorkflowExporter and does what it does (the workflow's info
 * as attributes, the trace state rebuilt) in the current shape.
 */
import { createTraceState, type SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';

/** The `sinks` option of a worker whose workflow bundle carries the tracing interceptors. */
export function workflowSpanSinks(processor: SpanProcessor, resource: Resource): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          for (const span of spans) processor.onEnd(readableSpan(span, info, resource));
        },
      },
    },
  };
}

/** One span from the sandbox, as the current SDK's processors and exporters read a finished span. */
export function readableSpan(span: SerializableSpan, info: WorkflowInfo, resource: Resource): ReadableSpan {
  const { traceState, ...ids } = span.spanContext;
  const context: SpanContext = { ...ids, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => context,
    // The sandbox knows the parent's id only; it is in the same trace, with the same flags.
    parentSpanContext: span.parentSpanId ? { traceId: context.traceId, spanId: span.parentSpanId, traceFlags: context.traceFlags } : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    // As Temporal's own exporter does: the workflow's info (ids, type, queue) beside the span's attributes.
    attributes: Object.assign({}, span.attributes, info) as ReadableSpan['attributes'],
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource,
    instrumentationScope: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
