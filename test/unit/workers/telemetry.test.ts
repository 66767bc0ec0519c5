import { Writable } from 'node:stream';
import pino from 'pino';
import { logFieldsOf, temporalLoggerFor } from '../../../workers/telemetry';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

describe('Temporal SDK logs as the service logs them', () => {
  it('writes the same JSON with the workflow and activity fields in snake case', async () => {
    const { log, lines } = capture('info');
    const logger = temporalLoggerFor(log);
    logger.info('Activity completed', { sdkComponent: 'activity', workflowId: 'plan:t1:p1', workflowRunId: 'r1', activityType: 'generateWorkOrder', activityId: '3' });
    logger.warn('Workflow task failed', { sdkComponent: 'worker', workflowId: 'w', runId: 'r2', error: new Error('boom') });
    logger.debug('below the level', { workflowId: 'w' });
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'Activity completed',
      sdk_component: 'activity',
      workflow_id: 'plan:t1:p1',
      workflow_run_id: 'r1',
      activity_type: 'generateWorkOrder',
      activity_id: '3',
    });
    expect(lines[1]).toMatchObject({ level: 40, msg: 'Workflow task failed', workflow_id: 'w', run_id: 'r2', err: { message: 'boom', type: 'Error' } });
  });

  it('never lets a metadata key become the prototype of the fields', () => {
    const meta = JSON.parse('{"__proto__": {"polluted": true}, "workflowId": "w"}');
    const fields = logFieldsOf(meta);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(fields).toEqual({ workflow_id: 'w' });
  });
});
