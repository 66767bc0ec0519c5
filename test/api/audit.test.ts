import { appendAudit, verifyTenantChain } from '../../db/audit';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { openOwnerDb } from '../support/owner-db';

let api: TestApi;
let tenant: TestTenant;
beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

async function createAsset(name: string, requestId?: string): Promise<string> {
  const res = await api.request('/api/v1/assets', {
    method: 'POST',
    token: tenant.token,
    json: { name, type: 'pump' },
    headers: requestId ? { 'X-Request-Id': requestId } : {},
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('audit trail', () => {
  it('records every mutating call with actor, action, resource and request id', async () => {
    const id = await createAsset('Pump A', 'req-audit-1');
    await api.request(`/api/v1/assets/${id}`, { method: 'PUT', token: tenant.token, json: { name: 'Pump A2' } });
    await api.request(`/api/v1/assets/${id}`, { method: 'DELETE', token: tenant.token });
    const res = await api.request(`/api/v1/audit?resource_id=${id}`, { token: tenant.token });
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { action: string }) => e.action)).toEqual(['asset.deleted', 'asset.updated', 'asset.created']);
    expect(res.body.items[2]).toMatchObject({
      actor_type: 'user',
      actor_id: tenant.adminUserId,
      resource_type: 'asset',
      resource_id: id,
      request_id: 'req-audit-1',
    });
    expect(res.body.items[1].details).toEqual({ fields: ['name'] });
  });

  it('paginates and filters', async () => {
    for (let i = 0; i < 3; i += 1) await createAsset(`Paged ${i}`);
    const page = await api.request('/api/v1/audit?action=asset.created&limit=2&skip=1', { token: tenant.token });
    expect(page.body.limit).toBe(2);
    expect(page.body.skip).toBe(1);
    expect(page.body.items).toHaveLength(2);
    expect(page.body.total).toBeGreaterThanOrEqual(4);
    expect(page.body.items.every((e: { action: string }) => e.action === 'asset.created')).toBe(true);
  });

  it('is append-only in the database', async () => {
    await createAsset('Guarded');
    await expect(api.deps.db('audit_log').where({ tenant_id: tenant.tenantId }).update({ action: 'forged' })).rejects.toThrow(/append-only/);
    await expect(api.deps.db('audit_log').where({ tenant_id: tenant.tenantId }).delete()).rejects.toThrow(/append-only/);
    // The app's role holds no TRUNCATE; the owner meets the trigger.
    await expect(api.deps.db.raw('truncate audit_log')).rejects.toThrow(/permission denied for table audit_log/);
    const owner = openOwnerDb();
    try {
      await expect(owner.raw('truncate audit_log')).rejects.toThrow(/append-only/);
    } finally {
      await owner.destroy();
    }
  });

  it('verifies, then reports the first broken row once a row is altered directly', async () => {
    const t = await createTenant(api);
    for (let i = 0; i < 4; i += 1) {
      await api.request('/api/v1/assets', { method: 'POST', token: t.token, json: { name: `Chain ${i}`, type: 'fan' } });
    }
    const ok = await api.request('/api/v1/audit/verify', { token: t.token });
    expect(ok.body).toMatchObject({ valid: true, checked: 6 }); // tenant.created, auth.login, 4 creates

    // An attacker with superuser rights bypasses the trigger and rewrites history.
    const superuser = openOwnerDb();
    try {
      await superuser.transaction(async (tx) => {
        await tx.raw('set local session_replication_role = replica');
        await tx('audit_log').where({ tenant_id: t.tenantId, seq: 3 }).update({ action: 'asset.deleted' });
      });
    } finally {
      await superuser.destroy();
    }
    const broken = await api.request('/api/v1/audit/verify', { token: t.token });
    expect(broken.status).toBe(200);
    expect(broken.body).toEqual({ valid: false, checked: 2, broken_at_seq: 3, reason: 'row content does not match its hash' });
  });

  it('hashes in the database what the verifier hashes: non-ASCII, escapes, nested details, concurrent appends', async () => {
    const t = await createTenant(api);
    const details = { clé: 'Müller ✓ 𝄞', quote: 'a"b\\c', lines: 'one\ntwo', nested: { z: [1, 2.5, null, true], a: {} } };
    const append = (i: number) =>
      api.deps.db.transaction((tx) =>
        appendAudit(tx, {
          tenantId: t.tenantId,
          actor: { type: 'service', id: 'tests' },
          action: 'test.appended',
          resourceType: 'test',
          resourceId: `r-${i}`,
          requestId: null,
          details,
        }),
      );
    const appended = await Promise.all(Array.from({ length: 12 }, (_, i) => append(i)));
    // Serialised by the tenant's lock: twelve distinct consecutive seqs after the tenant's own rows.
    const seqs = appended.map((a) => a.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => seqs[0] + i));
    const last = await api.deps.db('audit_log').where({ tenant_id: t.tenantId }).orderBy('seq', 'desc').first('seq', 'hash', 'details');
    expect({ seq: Number(last.seq), hash: last.hash }).toEqual(appended.find((a) => a.seq === seqs[11]));
    expect(last.details).toEqual(details);
    expect(await verifyTenantChain(api.deps.db, t.tenantId)).toMatchObject({ valid: true, last_seq: seqs[11] });
  });

  it('needs view_audit', async () => {
    const tech = await createUser(api, tenant.tenantId, 'technician');
    expectError(await api.request('/api/v1/audit/verify', { token: tech.token }), 403, 'FORBIDDEN');
  });
});
