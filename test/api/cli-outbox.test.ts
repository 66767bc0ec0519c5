/**
 * `industrial-ops outbox ...` as a real process against the test stack: the backlog with its
 * parked events, and a requeue through the internal API's own service function, audited in the
 * event's tenant as the operator; the dispatcher then sends it.
 */
import { randomUUID } from 'node:crypto';
import { appendEvent } from '../../db/outbox';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { runCli, runJson, TEST_OPERATOR } from '../support/cli';
import { until } from '../support/until';

jest.setTimeout(120_000);

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

describe('outbox', () => {
  it('shows the backlog and a parked event without its data, requeues it once with an audit record, and the dispatcher sends it', async () => {
    const id = await api.deps.db.transaction(async (tx) => (await appendEvent(tx, { tenantId: tenant.tenantId, type: 'asset.created', data: { secret_note: 'not shown' } })).id);
    // Parked as the dispatcher parks an event it gave up on.
    await api.deps.db('outbox_events').where({ id }).update({ attempts: 8, last_error: 'Error: refused', parked_at: api.deps.db.fn.now(), dispatched_at: api.deps.db.fn.now() });

    const backlog = await runJson(['outbox', 'backlog', '--tenant', tenant.tenantId]);
    expect(backlog).toMatchObject({ parked: 1, pending: 0, retrying: 0, held: 0, total: 1, skip: 0, limit: 20 });
    expect(backlog.items).toEqual([
      {
        id,
        tenant_id: tenant.tenantId,
        type: 'asset.created',
        attempts: 8,
        last_error: 'Error: refused',
        next_attempt_at: null,
        parked_at: expect.any(String),
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(backlog)).not.toContain('not shown');
    expect((await runJson(['outbox', 'backlog', '--limit', '100'])).parked).toBeGreaterThanOrEqual(1);
    const text = await runCli(['outbox', 'backlog', '--tenant', tenant.tenantId]);
    expect(text.stdout).toMatch(/^pending +0\nretrying +0\nparked +1\n/);

    const requeued = await runJson(['outbox', 'requeue', id]);
    expect(requeued).toMatchObject({ id, tenant_id: tenant.tenantId, attempts: 0, parked_at: null });
    expect(
      await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'outbox.event_requeued' }).select('actor_type', 'actor_id', 'resource_id', 'details'),
    ).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, resource_id: id, details: { type: 'asset.created' } }]);
    await until(
      () => api.deps.db('outbox_events').where({ id }).first('dispatched_at', 'parked_at'),
      (row) => row.dispatched_at !== null && row.parked_at === null,
      'the requeued event dispatched',
    );

    const again = await runCli(['--json', 'outbox', 'requeue', id]);
    expect({ code: again.code, json: again.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'parked event not found' } });
    const malformed = await runCli(['--json', 'outbox', 'requeue', 'not-an-id']);
    expect(malformed.json).toEqual({ error_code: 'NOT_FOUND', detail: 'parked event not found' });
    expect((await runCli(['outbox', 'requeue', randomUUID()])).code).toBe(1);
  });
});
