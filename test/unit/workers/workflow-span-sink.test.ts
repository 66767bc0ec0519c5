/**
 * Workflow spans leave the sandbox in the span shape of the SDK's 1.x line (Temporal's workflow
 * interceptors build them there); the sink hands them to the current SDK's processor with their
 * parent, scope, trace state and the workflow's info, as the exporters read a finished span.
 * End to end (a handler's span under the API's call): test/api/tracing.test.ts.
 */
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { WorkflowInfo } from '@temporalio/workflow';
import { workflowSpanSinks } from '../../../workers/workflow-span-sink';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

/** A span as the sandbox's exporter serialises it (the SDK's 1.x ReadableSpan, trace state as text). */
function fromSandbox(overrides: Partial<SerializableSpan> = {}): SerializableSpan {
  return {
    name: 'HandleUpdate:recordCounter',
    kind: SpanKind.SERVER,
    spanContext: { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, traceState: 'vendor=value' },
    parentSpanId: '00f067aa0ba902b7',
    startTime: [1_700_000_000, 0],
    endTime: [1_700_000_000, 5_000_000],
    status: { code: SpanStatusCode.OK },
    attributes: { run_id: 'run-1' },
    links: [],
    events: [{ name: 'accepted', time: [1_700_000_000, 1_000_000] }],
    duration: [0, 5_000_000],
    ended: true,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    instrumentationLibrary: { name: '@temporalio/interceptor-workflow', version: '1.24.0' },
    ...overrides,
  };
}

const info = { workflowId: 'plan-42', workflowType: 'maintenancePlanWorkflow', taskQueue: 'main' } as unknown as WorkflowInfo;
const resource = resourceFromAttributes({ 'service.name': 'worker-under-test' });

function exportThroughSink(spans: SerializableSpan[]) {
  const exporter = new InMemorySpanExporter();
  void workflowSpanSinks(new SimpleSpanProcessor({ exporter }), resource).exporter.export.fn(info, spans);
  return exporter.getFinishedSpans();
}

it('keeps the parent, the scope, the trace state and the timing of a sandbox span', () => {
  const [span] = exportThroughSink([fromSandbox()]);
  expect(span!.spanContext()).toMatchObject({ traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
  expect(span!.spanContext().traceState?.get('vendor')).toBe('value');
  expect(span!.parentSpanContext).toEqual({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
  expect(span!.instrumentationScope).toEqual({ name: '@temporalio/interceptor-workflow', version: '1.24.0' });
  expect(span!).toMatchObject({ name: 'HandleUpdate:recordCounter', kind: SpanKind.SERVER, startTime: [1_700_000_000, 0], endTime: [1_700_000_000, 5_000_000], ended: true });
  expect(span!.events.map((e) => e.name)).toEqual(['accepted']);
  expect(span!.resource.attributes['service.name']).toBe('worker-under-test');
});

it("adds the workflow's info to the span's attributes, as Temporal's exporter does", () => {
  const [span] = exportThroughSink([fromSandbox()]);
  expect(span!.attributes).toMatchObject({ run_id: 'run-1', workflowId: 'plan-42', workflowType: 'maintenancePlanWorkflow', taskQueue: 'main' });
});

it('exports a root span (no parent in the sandbox) without a parent context', () => {
  const [span] = exportThroughSink([fromSandbox({ parentSpanId: undefined, spanContext: { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED } })]);
  expect(span!.parentSpanContext).toBeUndefined();
  expect(span!.spanContext().traceState).toBeUndefined();
});
