import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { DatabaseError } from 'pg';
import { createLogger } from '../../../infra/logger';
import { temporalLoggerFor } from '../../../workers/telemetry';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('info', {}, stream), lines };
}

/** What pg raises for a check violation: the row's values in `detail`, one in the message. */
function checkViolation(): DatabaseError {
  const err = new DatabaseError('new row for relation "contacts" violates check constraint "contacts_phone_check"', 200, 'error');
  Object.assign(err, {
    severity: 'ERROR',
    code: '23514',
    detail: 'Failing row contains (7, maria.schmidt@plant.example.com, +49 170 1234567).',
    table: 'contacts',
    constraint: 'contacts_phone_check',
    schema: 'public',
    routine: 'ExecConstraints',
  });
  return err;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("PostgreSQL's detail never reaches a log line", () => {
  it('logs a pg error as its code, constraint and table only', async () => {
    const { log, lines } = capture();
    log.error({ err: checkViolation() }, 'unhandled error');
    log.error(checkViolation(), 'thrown as is');
    await settle();
    for (const line of lines) {
      expect(line).not.toMatch(/maria|Failing row|1234567/);
      expect(JSON.parse(line).err).toEqual({ type: 'DatabaseError', code: '23514', constraint: 'contacts_phone_check', table: 'contacts' });
    }
  });

  it('keeps a wrapping error but reduces its PostgreSQL cause', async () => {
    const { log, lines } = capture();
    log.error({ err: new Error('could not store the contact', { cause: checkViolation() }) }, 'failed');
    log.error({ err: Object.assign(new Error('plain'), { code: 'ECONNRESET' }) }, 'other errors as before');
    await settle();
    expect(lines[0]).not.toMatch(/maria|Failing row/);
    expect(JSON.parse(lines[0]!).err).toMatchObject({ message: 'could not store the contact', cause: { code: '23514', table: 'contacts' } });
    expect(JSON.parse(lines[1]!).err).toMatchObject({ type: 'Error', message: 'plain', code: 'ECONNRESET', stack: expect.any(String) });
  });

  it("holds for the Temporal SDK's activity failure lines", async () => {
    const { log, lines } = capture();
    temporalLoggerFor(log).warn('Activity failed', { activityType: 'storeContact', error: checkViolation() });
    await settle();
    expect(lines[0]).not.toMatch(/maria|Failing row/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'Activity failed', err: { code: '23514', constraint: 'contacts_phone_check' } });
  });
});

it('a line written inside a recording span carries its trace_id and span_id; outside, neither', () => {
  const { log, lines } = capture();
  const span = new TracerProvider().getTracer('test').startSpan('op');
  // The active span without a context manager: the mixin reads trace.getActiveSpan().
  const active = jest.spyOn(trace, 'getActiveSpan').mockReturnValue(span);
  log.info('inside');
  active.mockRestore();
  log.info('outside');
  span.end();
  const [inside, outside] = lines.map((l) => JSON.parse(l));
  expect(inside).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
  expect(outside.trace_id).toBeUndefined();
  expect(outside.span_id).toBeUndefined();
});
