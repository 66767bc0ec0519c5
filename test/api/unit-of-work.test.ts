/**
 * The unit of work outside HTTP (db/unit-of-work.ts), on the real database: a change, its outbox
 * event and its audit row commit together or not at all, whoever runs it (a worker, a CLI).
 */
import { randomUUID } from 'node:crypto';
import { runUnit } from '../../db/unit-of-work';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api?.close());

const context = () => ({ tenantId: tenant.tenantId, actor: { type: 'system' as const, id: null }, requestId: null });
const traces = async (name: string) => ({
  assets: await api.deps.db('assets').where({ tenant_id: tenant.tenantId, name }).count({ n: '*' }).first(),
  events: await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId }).whereRaw(`data->>'name' = ?`, [name]).count({ n: '*' }).first(),
  audit: await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId }).whereRaw(`details->>'name' = ?`, [name]).select('actor_type', 'request_id', 'action'),
});

it('commits the change, its event and its audit row together, with no request', async () => {
  const name = `unit-${randomUUID()}`;
  const id = await runUnit(api.deps.db, context(), async (unit) => {
    const [row] = await unit.scope.insert('assets', { name, type: 'pump' }, ['id']);
    unit.emit('asset.created', { asset_id: row.id, name });
    unit.audit({ action: 'asset.created', resourceType: 'asset', resourceId: row.id, details: { name } });
    return row.id as string;
  });
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(await traces(name)).toEqual({ assets: { n: '1' }, events: { n: '1' }, audit: [{ actor_type: 'system', request_id: null, action: 'asset.created' }] });
});

it('commits nothing when the work fails, or forgets its audit record', async () => {
  const failing = `unit-${randomUUID()}`;
  await expect(
    runUnit(api.deps.db, context(), async (unit) => {
      await unit.scope.insert('assets', { name: failing, type: 'pump' });
      unit.emit('asset.created', { name: failing });
      unit.audit({ action: 'asset.created', resourceType: 'asset', resourceId: null, details: { name: failing } });
      throw new Error('the work failed');
    }),
  ).rejects.toThrow('the work failed');
  expect(await traces(failing)).toEqual({ assets: { n: '0' }, events: { n: '0' }, audit: [] });

  const unaudited = `unit-${randomUUID()}`;
  await expect(
    runUnit(api.deps.db, context(), async (unit) => {
      await unit.scope.insert('assets', { name: unaudited, type: 'pump' });
      unit.emit('asset.created', { name: unaudited });
    }),
  ).rejects.toThrow(/without an audit record/);
  expect(await traces(unaudited)).toEqual({ assets: { n: '0' }, events: { n: '0' }, audit: [] });
});
