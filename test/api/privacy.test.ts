/**
 * Privacy over real HTTP: registry completeness, settings, subject export (ZIP read file by file,
 * history free of personal data), erasure (no trace left in any table or the bucket, audit chain
 * still valid), purge-old, the retention Schedule with the non-retroactive rule, tenant isolation.
 */
import { randomUUID } from 'node:crypto';
import { appendAudit, subjectHash, verifyTenantChain } from '../../db/audit';
import { deleteExpiredBatch } from '../../db/privacy/categories';
import { clampAuditCutoff } from '../../domain/privacy/settings';
import { createPrivacyExportActivities } from '../../activities/privacy/exports';
import { exportLinkOf } from '../../services/privacy';
import { readZip } from '../support/zip';
import { categoryByName, NOT_SUBJECT_DATA, OUTSIDE_RETENTION, PRIVACY_CATEGORIES } from '../../domain/privacy/registry';
import { workflowIds } from '../../infra/workflow-ids';
import { RETENTION_SCHEDULE } from '../../orchestration/privacy';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { expectNoPersonalData } from '../support/history-text';
import { untilValue } from '../support/until';

let api: TestApi;
let t: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  [t, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(() => api.close());

/** An export link used as a browser uses it: no token, the redirect (to the object store) not followed. */
function fetchLink(url: string, headers: Record<string, string> = {}) {
  const link = new URL(url);
  return api.request(`${link.pathname}${link.search}`, { headers, redirect: 'manual' });
}

/** An object's bytes. */
async function objectBytes(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await api.deps.objectStore.client.getObject(api.deps.objectStore.bucket, key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);

interface Person {
  id: string;
  name: string;
  phone: string;
  email: string;
}

function person(label: string): Omit<Person, 'id'> {
  const tag = randomUUID().slice(0, 8);
  return { name: `${label} Zyx${tag}`, phone: `+4915${Math.floor(1e8 + Math.random() * 8e8)}`, email: `${label.toLowerCase()}.${tag}@mail.example.org` };
}

/** A subject with data in every category that links to one: contact, conversation + messages, task, audit. */
async function seedSubject(tenantId: string, label: string): Promise<Person & { conversationId: string; taskId: string; csatResponseId: string; extractedRecordId: string }> {
  const db = api.deps.db;
  const p = person(label);
  const [contact] = await db('contacts')
    .insert({ tenant_id: tenantId, ...p })
    .returning('id');
  const [conversation] = await db('conversations').insert({ tenant_id: tenantId, agent_id: randomUUID(), contact_id: contact.id, channel: 'whatsapp' }).returning('id');
  await db('messages').insert([
    { tenant_id: tenantId, conversation_id: conversation.id, direction: 'inbound', body: `Hello, I am ${p.name}, mail me at ${p.email} or call ${p.phone}` },
    { tenant_id: tenantId, conversation_id: conversation.id, direction: 'outbound', body: 'Thanks, a technician will come by.' },
  ]);
  const [task] = await db('maintenance_tasks')
    .insert({
      tenant_id: tenantId,
      task_code: `T-${randomUUID().slice(0, 8)}`,
      title: 'Pump leak reported by a visitor',
      due_at: new Date(),
      contact_id: contact.id,
      notes: `Call back ${p.name} on ${p.phone}`,
    })
    .returning('id');
  // Issue 8's categories: a CSAT answer with a comment naming the person, a record extracted from their mail.
  const [survey] = await db('csat_surveys')
    .insert({ tenant_id: tenantId, name: `Survey ${label}`, question: 'How did we do?', scale: 'csat_5', channels: ['whatsapp'] })
    .returning('id');
  const [csat] = await db('csat_responses')
    .insert({
      tenant_id: tenantId,
      survey_id: survey.id,
      conversation_id: conversation.id,
      contact_id: contact.id,
      score: 4,
      comment: `Quick fix, thanks from ${p.name}`,
      responded_at: new Date(),
    })
    .returning('id');
  const fieldsDef = [{ name: 'requester_email', type: 'string' }];
  const [template] = await db('extraction_templates')
    .insert({ tenant_id: tenantId, name: `Request ${randomUUID()}`, fields: JSON.stringify(fieldsDef) })
    .returning('id');
  const [record] = await db('extracted_records')
    .insert({
      tenant_id: tenantId,
      template_id: template.id,
      template_fields: JSON.stringify(fieldsDef),
      subject_contact_id: contact.id,
      engine: 'built-in',
      model: 'built-in',
      fields: JSON.stringify({ requester_email: { value: p.email, confidence: 0.9, source: { start: 0, end: p.email.length, text: p.email }, engine: 'built-in' } }),
    })
    .returning('id');
  await db.transaction((tx) =>
    appendAudit(tx, {
      tenantId,
      actor: { type: 'system', id: null },
      action: 'contact.created',
      resourceType: 'contact',
      resourceId: contact.id,
      requestId: null,
      subjectId: contact.id,
    }),
  );
  return { id: contact.id, ...p, conversationId: conversation.id, taskId: task.id, csatResponseId: csat.id, extractedRecordId: record.id };
}

/** Rows of any public table whose text/json columns contain the needle (case-insensitive). */
async function tablesContaining(needle: string): Promise<string[]> {
  const db = api.deps.db;
  const columns = await db('information_schema.columns')
    .where({ table_schema: 'public' })
    .whereIn('data_type', ['text', 'character varying', 'jsonb', 'json', 'ARRAY'])
    .select('table_name', 'column_name');
  const hits: string[] = [];
  for (const c of columns) {
    const row = await db(c.table_name)
      .whereRaw('??::text ilike ?', [c.column_name, `%${needle}%`])
      .count({ n: '*' })
      .first();
    if (Number(row?.n) > 0) hits.push(`${c.table_name}.${c.column_name}`);
  }
  return hits;
}

/** Keys of the bucket's objects under `prefix` whose content contains any of the needles. */
async function bucketObjectsContaining(prefix: string, needles: string[]): Promise<string[]> {
  const { client, bucket } = api.deps.objectStore;
  const keys: string[] = [];
  for await (const item of client.listObjectsV2(bucket, prefix, true)) if (item.name) keys.push(item.name);
  const hits: string[] = [];
  for (const key of keys) {
    const chunks: Buffer[] = [];
    for await (const chunk of await client.getObject(bucket, key)) chunks.push(chunk as Buffer);
    const text = await readableText(Buffer.concat(chunks));
    if (needles.some((n) => text.includes(n))) hits.push(key);
  }
  return hits;
}

/** An object's text; a ZIP (compressed, so its raw bytes hide its contents) is read entry by entry, nested ones too. */
async function readableText(bytes: Buffer): Promise<string> {
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) return bytes.toString('utf8');
  const texts: string[] = [];
  for (const entry of (await readZip(bytes)).values()) texts.push(await readableText(entry));
  return texts.join('\n');
}

async function exportReady(token: string, exportId: string) {
  return untilValue(async () => {
    const res = await api.request(`/api/v1/privacy/exports/${exportId}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.status).not.toBe('failed');
    return res.body.status === 'ready' ? res.body : null;
  });
}

describe('registry', () => {
  it('classifies every table: in the registry with its retention, or outside it with a reason', async () => {
    // pg_tables, not information_schema (which lists only what the app's role holds privileges on).
    const tables: string[] = await api.deps.db('pg_tables').where({ schemaname: 'public' }).pluck('tablename');
    const classified = new Set([...PRIVACY_CATEGORIES.map((c) => c.table), ...Object.keys(OUTSIDE_RETENTION)]);
    expect(tables.filter((table) => !classified.has(table)).sort()).toEqual([]);
    // And the lists name real tables only (a renamed table leaves no stale entry behind).
    expect([...classified].filter((table) => !tables.includes(table))).toEqual([]);
    for (const table of ['sensor_readings', 'machine_events', 'outbox_events']) {
      expect(PRIVACY_CATEGORIES.find((c) => c.table === table)?.retention?.setting).toBe('machine_events_days');
    }
  });

  it('covers every table with a subject link or contact columns', async () => {
    const rows = await api.deps
      .db('information_schema.columns')
      .where({ table_schema: 'public' })
      .where((w) => void w.whereIn('column_name', ['contact_id', 'subject_id', 'phone', 'email', 'subject_ref']).orWhere('column_name', 'like', '%\\_contact\\_id'))
      .distinct('table_name');
    const linked = rows.map((r: { table_name: string }) => r.table_name).sort();
    expect(linked).toEqual(expect.arrayContaining(['contacts', 'conversations', 'maintenance_tasks', 'audit_log']));
    const covered = new Set([...PRIVACY_CATEGORIES.map((c) => c.table), ...Object.keys(NOT_SUBJECT_DATA)]);
    expect(linked.filter((table: string) => !covered.has(table))).toEqual([]);
  });
});

describe('settings', () => {
  it('answers SPEC.md defaults, enforces bounds and fixed encryption, and stores per tenant', async () => {
    const res = await api.request('/api/v1/privacy/settings', { token: t.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      retention: { machine_events_days: 90, alerts_days: 180, conversations_days: 365, audit_trail_days: 2555, extracted_records_days: 1825 },
      encryption: { at_rest: 'AES-256', in_transit: 'TLS 1.3' },
      pii: { auto_redact: false },
      subjects: { default_country: null },
      updated_at: null,
    });
    expectError(await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { retention: { audit_trail_days: 364 } } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { retention: { alerts_days: 0 } } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { encryption: { at_rest: 'AES-128' } } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { encryption: { in_transit: 'TLS 1.2' } } }), 422, 'VALIDATION_ERROR');

    const put = await api.request('/api/v1/privacy/settings', {
      method: 'PUT',
      token: t.token,
      json: { retention: { audit_trail_days: 365, alerts_days: 30 }, encryption: { at_rest: 'AES-256' }, pii: { auto_redact: true } },
    });
    expect(put.status).toBe(200);
    expect(put.body.retention).toMatchObject({ audit_trail_days: 365, alerts_days: 30, machine_events_days: 90 });
    expect(put.body.pii).toEqual({ auto_redact: true });
    const stored = await api.deps.db('tenant_settings').where({ tenant_id: t.tenantId }).first('retention', 'pii_auto_redact');
    expect(stored.pii_auto_redact).toBe(true);
    expect(stored.retention.alerts_days).toEqual({ days: 30, grandfathered: { protectedBefore: expect.any(String), priorDays: 180 } });
    // A manager reads but cannot change privacy settings or start subject requests.
    const manager = await createUser(api, t.tenantId, 'manager');
    expect((await api.request('/api/v1/privacy/settings', { token: manager.token })).status).toBe(200);
    expectError(await api.request('/api/v1/privacy/settings', { method: 'PUT', token: manager.token, json: { pii: { auto_redact: true } } }), 403, 'FORBIDDEN');
    expectError(await api.request('/api/v1/privacy/purge-old', { method: 'POST', token: manager.token, json: { older_than: 'P1D' } }), 403, 'FORBIDDEN');
    // The other tenant keeps its defaults.
    expect((await api.request('/api/v1/privacy/settings', { token: other.token })).body.retention.alerts_days).toBe(180);
    await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { pii: { auto_redact: false } } });
  });
});

describe('export, erasure and isolation', () => {
  let alice: Awaited<ReturnType<typeof seedSubject>>;
  let bob: Awaited<ReturnType<typeof seedSubject>>;
  let exportId: string;

  beforeAll(async () => {
    alice = await seedSubject(t.tenantId, 'Alice');
    bob = await seedSubject(t.tenantId, 'Bob');
  });

  it('answers a signed link at once, which says when to retry until the ZIP is built, then serves it (subject named by e-mail)', async () => {
    const res = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: alice.email.toUpperCase(), format: 'json' } });
    // Answered without waiting for the workflow: 202 while it builds (200 only if it was already done).
    expect([200, 202]).toContain(res.status);
    expect(res.body).toMatchObject({ export_id: expect.any(String), subject_id: alice.id, url: expect.any(String), expires_at: expect.any(String) });
    expect(res.body).toMatchObject({ matched: 1, subject_ids: [alice.id], exports: [expect.objectContaining({ export_id: res.body.export_id, url: res.body.url })] });
    if (res.status === 202) expect(res.headers.get('location')).toBe(`/api/v1/privacy/exports/${res.body.export_id}`);
    exportId = res.body.export_id;
    // A link of the service (its public base URL), valid 24 h from the request.
    const link = new URL(res.body.url);
    expect(`${link.origin}${link.pathname}`).toBe(`${api.deps.config.api.publicUrl}/api/v1/privacy/exports/${exportId}/archive`);
    expect(new Date(res.body.expires_at).getTime() - new Date(res.body.created_at).getTime()).toBe(86_400_000);
    expect(Number(link.searchParams.get('expires'))).toBe(Math.floor(new Date(res.body.expires_at).getTime() / 1000));

    // The link, as a browser or curl uses it: no token. 503 with Retry-After until built, then a redirect.
    const download = await untilValue(async () => {
      const answer = await fetchLink(res.body.url);
      if (answer.status === 503) {
        expectError(answer, 503, 'EXPORT_NOT_READY');
        expect({ retryAfter: answer.headers.get('retry-after'), refresh: answer.headers.get('refresh'), body: answer.body.retry_after }).toEqual({
          retryAfter: '5',
          refresh: '5',
          body: 5,
        });
        return null;
      }
      return answer;
    });
    expect(download.status).toBe(302);
    const presigned = new URL(download.headers.get('location')!);
    expect(presigned.searchParams.get('X-Amz-Expires')).toBe('300');
    const zip = await fetch(presigned);
    expect({ status: zip.status, type: zip.headers.get('content-type'), disposition: zip.headers.get('content-disposition') }).toEqual({
      status: 200,
      type: 'application/zip',
      disposition: `attachment; filename="export-${exportId}.zip"`,
    });
    const files = await readZip(Buffer.from(await zip.arrayBuffer()));
    expect([...files.keys()].sort()).toEqual([
      'audit_trail.json',
      'contact.json',
      'conversations.json',
      'csat_invitations.json',
      'csat_responses.json',
      'extracted_record_corrections.json',
      'extracted_records.json',
      'files.json',
      'maintenance_tasks.json',
      'manifest.json',
      'messages.json',
      'tool_calls.json',
    ]);
    const json = (name: string) => JSON.parse(files.get(name)!.toString('utf8'));
    expect(json('csat_responses.json')).toEqual([expect.objectContaining({ id: alice.csatResponseId, score: 4, comment: `Quick fix, thanks from ${alice.name}` })]);
    expect(json('extracted_records.json')).toEqual([
      expect.objectContaining({ id: alice.extractedRecordId, fields: expect.objectContaining({ requester_email: expect.objectContaining({ value: alice.email }) }) }),
    ]);

    expect(json('contact.json')).toEqual([expect.objectContaining({ id: alice.id, name: alice.name, phone: alice.phone, email: alice.email })]);
    expect(json('conversations.json')).toEqual([expect.objectContaining({ id: alice.conversationId, channel: 'whatsapp' })]);
    const messages = json('messages.json');
    expect(messages).toHaveLength(2);
    expect(messages.map((m: any) => m.conversation_id)).toEqual([alice.conversationId, alice.conversationId]);
    expect(messages.map((m: any) => m.body)).toEqual(expect.arrayContaining([expect.stringContaining(alice.email)]));
    expect(json('maintenance_tasks.json')).toEqual([expect.objectContaining({ id: alice.taskId, notes: `Call back ${alice.name} on ${alice.phone}` })]);
    const audit = json('audit_trail.json');
    expect(audit.map((a: any) => a.action)).toEqual(['contact.created', 'privacy.export.requested']);
    // Nothing of Bob's.
    for (const [, content] of files) expect(content.toString('utf8')).not.toContain(bob.email);

    const manifest = json('manifest.json');
    expect(manifest.export_id).toBe(exportId);
    const { createHash } = await import('node:crypto');
    for (const part of manifest.parts) {
      const content = files.get(part.file)!;
      expect(part.sha256).toBe(createHash('sha256').update(content).digest('hex'));
      expect(part.bytes).toBe(content.length);
      expect(part.count).toBe(JSON.parse(content.toString('utf8')).length);
    }
    expect(Object.fromEntries(manifest.parts.map((p: any) => [p.category, p.count]))).toEqual({
      messages: 2,
      conversations: 1,
      maintenance_tasks: 1,
      audit_trail: 2,
      contact: 1,
      csat_responses: 1,
      csat_invitations: 0,
      extracted_records: 1,
      extracted_record_corrections: 0,
      files: 0,
      tool_calls: 0,
    });

    // Ready now: the export's status says so, with the same link.
    expect(await exportReady(t.token, exportId)).toMatchObject({ status: 'ready', url: res.body.url, progress: { phase: 'ready', percent: 100 } });
    // The link is a credential: never in the workflow's history, the audit trail or a table.
    const signature = link.searchParams.get('signature')!;
    const client = await api.deps.temporal.client();
    await expectNoPersonalData(client, workflowIds.privacyExport(t.tenantId, exportId), exportId, [
      alice.email,
      alice.phone,
      alice.name,
      signature,
      'X-Amz-Signature',
      presigned.host,
    ]);
    expect(await tablesContaining(signature)).toEqual([]);
    expect(await tablesContaining('X-Amz-Signature')).toEqual([]);
  });

  it("puts the MinIO objects of a category's rows (uploaded files) into the ZIP", async () => {
    // A stand-in for the future files category: the subject's earlier export rows and their ZIPs.
    const uploads = {
      name: 'uploads',
      table: 'privacy_exports',
      link: { kind: 'column' as const, column: 'subject_id' },
      erasure: { kind: 'delete' as const },
      exportColumns: ['id', 'format'],
      keyColumn: 'id',
      objectKeyColumn: 'object_key',
    };
    const activities = createPrivacyExportActivities({ db: api.deps.db, objectStore: api.deps.objectStore, categories: [uploads] });
    const [row] = await api.deps.db('privacy_exports').insert({ tenant_id: t.tenantId, subject_id: alice.id }).returning('id');
    const built = await activities.buildSubjectExport({ tenantId: t.tenantId, exportId: row.id });
    await activities.publishSubjectExport({ tenantId: t.tenantId, exportId: row.id });
    const files = await readZip(await objectBytes(`privacy-exports/${t.tenantId}/${row.id}.zip`));
    const nested = [...files.keys()].filter((k) => k.startsWith('files/uploads/'));
    expect(nested).toEqual([`files/uploads/${exportId}-${exportId}.zip`]);
    // The embedded object is the first export's ZIP, byte for byte readable.
    expect((await readZip(files.get(nested[0])!)).get('contact.json')!.toString('utf8')).toContain(alice.email);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(manifest.parts.map((p: any) => p.file)).toEqual(['uploads.json', nested[0]]);
    expect(built.parts).toBe(2);
    await api.deps.db('privacy_exports').where({ id: row.id }).delete();
    await api.deps.objectStore.client.removeObject(api.deps.objectStore.bucket, `privacy-exports/${t.tenantId}/${row.id}.zip`);
  });

  it('binds the link to its tenant, export and expiry: any change is 403, and the link needs no token', async () => {
    const { url } = (await api.request(`/api/v1/privacy/exports/${exportId}`, { token: t.token })).body;
    const changed = (name: string, value: string) => {
      const u = new URL(url);
      u.searchParams.set(name, value);
      return u.toString();
    };
    const link = new URL(url);
    const expires = Number(link.searchParams.get('expires'));
    const signature = link.searchParams.get('signature')!;
    const otherExport = (await api.deps.db('privacy_exports').insert({ tenant_id: other.tenantId, subject_id: randomUUID() }).returning('id'))[0].id;
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    for (const tampered of [
      changed('tenant', other.tenantId),
      changed('expires', String(expires + 86_400)),
      changed('signature', flipped),
      changed('signature', signature.slice(0, 20)),
      url.replace(exportId, otherExport),
    ]) {
      expectError(await fetchLink(tampered), 403, 'EXPORT_LINK_INVALID');
    }
    // Another tenant's token changes nothing: the link is the credential, bound to its tenant.
    expect((await fetchLink(url, { Authorization: `Bearer ${other.token}` })).status).toBe(302);
    expectError(await fetchLink(changed('signature', '')), 422, 'VALIDATION_ERROR');
  });

  it('hands the link only to roles that may request an export (managers see the status, not the link)', async () => {
    const manager = await createUser(api, t.tenantId, 'manager');
    const asManager = await api.request(`/api/v1/privacy/exports/${exportId}`, { token: manager.token });
    expect(asManager.status).toBe(200);
    expect(asManager.body).toMatchObject({ export_id: exportId, status: 'ready', url: null });
    expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: manager.token, json: { subject_id: alice.id } }), 403, 'FORBIDDEN');
    expect((await api.request(`/api/v1/privacy/exports/${exportId}`, { token: t.token })).body.url).toEqual(expect.any(String));
  });

  it('answers an export being built 503 with Retry-After, a failed one 410 EXPORT_FAILED, and a link past its 24 h 410 EXPORT_EXPIRED, after which a request builds a new export', async () => {
    // An export still being built (of the other tenant, through its own link): when to retry, for clients and browsers.
    const [building] = await api.deps.db('privacy_exports').insert({ tenant_id: other.tenantId, subject_id: randomUUID(), status: 'running' }).returning('*');
    const notReady = await fetchLink(exportLinkOf(api.deps.exportLinks, building));
    expectError(notReady, 503, 'EXPORT_NOT_READY');
    expect({ retryAfter: notReady.headers.get('retry-after'), refresh: notReady.headers.get('refresh'), body: notReady.body }).toMatchObject({
      retryAfter: '5',
      refresh: '5',
      body: { retry_after: 5, status: 'running', progress: { phase: 'queued', percent: 0 } },
    });
    // A failed export of the other tenant, seen through its own link.
    const [failed] = await api.deps.db('privacy_exports').insert({ tenant_id: other.tenantId, subject_id: randomUUID(), status: 'failed' }).returning('*');
    expectError(await fetchLink(exportLinkOf(api.deps.exportLinks, failed)), 410, 'EXPORT_FAILED');

    // Within 24 h a request answers the same export and link.
    const first = await api.request(`/api/v1/privacy/exports/${exportId}`, { token: t.token });
    const again = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: alice.id, format: 'json' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ export_id: exportId, status: 'ready', url: first.body.url });
    // Age the export past its 24 h: its link (which carries its expiry) is refused, the export reads expired.
    const [aged] = await api.deps
      .db('privacy_exports')
      .where({ id: exportId })
      .update({ expires_at: daysAgo(0.001), created_at: daysAgo(1.001) })
      .returning('*');
    const expiredLink = await fetchLink(exportLinkOf(api.deps.exportLinks, aged));
    expectError(expiredLink, 410, 'EXPORT_EXPIRED');
    expect(expiredLink.body.expired_at).toBe(new Date(Math.floor(aged.expires_at.getTime() / 1000) * 1000).toISOString());
    const expired = await api.request(`/api/v1/privacy/exports/${exportId}`, { token: t.token });
    expect(expired.body).toMatchObject({ status: 'expired', url: null });
    // The next request regenerates: a new export with a new link.
    const fresh = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: alice.id, format: 'json' } });
    expect([200, 202]).toContain(fresh.status);
    expect(fresh.body).toMatchObject({ matched: 1, url: expect.any(String) });
    expect(fresh.body.export_id).not.toBe(exportId);
    expect(fresh.body.url).not.toBe(first.body.url);
    await exportReady(t.token, fresh.body.export_id);
  });

  it('finds subjects by e-mail or phone within the tenant only, acts on every contact matched, and keeps the identity out of workflows', async () => {
    const digits = `3461${Math.floor(1e6 + Math.random() * 8e6)}`;
    const spaced = `+${digits.slice(0, 2)} ${digits.slice(2, 5)} ${digits.slice(5)}`;
    // The same number stored twice, once with separators: two contacts, one identity.
    const [first] = await api.deps
      .db('contacts')
      .insert({ tenant_id: t.tenantId, name: 'Carol One', phone: `+${digits}` })
      .returning('id');
    const [second] = await api.deps.db('contacts').insert({ tenant_id: t.tenantId, name: 'Carol Two', phone: spaced }).returning('id');
    // Two tenants' contacts with one e-mail address: each tenant matches its own only.
    const shared = `dana.${randomUUID().slice(0, 8)}@mail.example.org`;
    const [own] = await api.deps.db('contacts').insert({ tenant_id: t.tenantId, email: shared }).returning('id');
    const [foreign] = await api.deps.db('contacts').insert({ tenant_id: other.tenantId, email: shared.toUpperCase() }).returning('id');
    const foreignOnly = `erin.${randomUUID().slice(0, 8)}@mail.example.org`;
    await api.deps.db('contacts').insert({ tenant_id: other.tenantId, email: foreignOnly });
    const fromOther = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: other.token, json: { subject_id: shared } });
    expect(fromOther.body).toMatchObject({ matched: 1, subject_ids: [foreign.id], subject_id: foreign.id });
    const fromOwn = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: shared } });
    expect(fromOwn.body).toMatchObject({ matched: 1, subject_ids: [own.id] });
    expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: foreignOnly } }), 404, 'NOT_FOUND');

    const byPhone = await api.request('/api/v1/privacy/export-subject', {
      method: 'POST',
      token: t.token,
      json: { subject_id: `00${digits.slice(0, 2)} (${digits.slice(2, 5)}) ${digits.slice(5)}` },
    });
    expect(byPhone.status).toBe(202);
    expect(byPhone.body).toMatchObject({ matched: 2, subject_ids: [first.id, second.id], subject_id: first.id });
    expect(byPhone.body.exports.map((e: any) => e.subject_id)).toEqual([first.id, second.id]);
    expect(await api.deps.db('privacy_exports').whereIn('subject_id', [first.id, second.id]).count({ n: '*' }).first()).toEqual({ n: '2' });
    for (const e of byPhone.body.exports) await exportReady(t.token, e.export_id);

    const erased = await api.request('/api/v1/privacy/erase-subject', {
      method: 'POST',
      token: t.token,
      json: { subject_id: `+${digits}`, reason: 'request by phone', preserve_audit: true },
    });
    expect(erased.status).toBe(202);
    expect(erased.body).toMatchObject({ matched: 2, subject_ids: [first.id, second.id], erasure_id: erased.body.erasures[0].erasure_id });
    const erasureIds = erased.body.erasures.map((e: any) => e.erasure_id);
    expect(new Set(erasureIds).size).toBe(2);
    const client = await api.deps.temporal.client();
    for (const id of erasureIds) {
      await untilValue(async () => (await api.request(`/api/v1/privacy/erasures/${id}`, { token: t.token })).body.status === 'completed');
      await expectNoPersonalData(client, workflowIds.privacyErasure(t.tenantId, id), id, [digits, spaced]);
    }
    expect(await api.deps.db('contacts').whereIn('id', [first.id, second.id]).count({ n: '*' }).first()).toEqual({ n: '0' });
    expect(await api.deps.db('contacts').where({ id: foreign.id }).count({ n: '*' }).first()).toEqual({ n: '1' });
    // The audit trail of the requests names ids, never the identity.
    const requests = [...erasureIds, ...[...byPhone.body.exports, fromOwn.body, fromOther.body].map((e: any) => e.export_id)];
    const details = await api.deps.db('audit_log').whereIn('resource_id', requests).pluck('details');
    expect(details.length).toBeGreaterThanOrEqual(requests.length);
    expect(JSON.stringify(details)).not.toMatch(new RegExp(`${digits.slice(4)}|${shared}`, 'i'));

    // No match: 404 for export and erasure alike; a string that is no identity: 422.
    for (const subject_id of [`nobody.${randomUUID()}@mail.example.org`, '+44 7700 900123']) {
      expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id } }), 404, 'NOT_FOUND');
      expectError(
        await api.request('/api/v1/privacy/erase-subject', { method: 'POST', token: t.token, json: { subject_id, reason: 'r', preserve_audit: true } }),
        404,
        'NOT_FOUND',
      );
    }
    expectError(
      await api.request('/api/v1/privacy/erase-subject', { method: 'POST', token: t.token, json: { subject_id: '600 111 222', reason: 'r', preserve_audit: true } }),
      422,
      'VALIDATION_ERROR',
    );
  });

  it("reads a phone number in national form with the tenant's default country, and refuses it clearly without one", async () => {
    const mobile = `6${1 + Math.floor(Math.random() * 5)}${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const [dutch] = await api.deps
      .db('contacts')
      .insert({ tenant_id: t.tenantId, name: 'Femke', phone: `+31${mobile}` })
      .returning('id');
    const national = `0${mobile.slice(0, 3)} ${mobile.slice(3, 6)} ${mobile.slice(6)}`; // 0612 345 678
    // No default country yet: a national number names nobody for sure.
    const refused = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: national } });
    expectError(refused, 422, 'VALIDATION_ERROR');
    expect(refused.body.detail).toMatch(/default country/);

    const set = await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { subjects: { default_country: 'nl' } } });
    expect(set.status).toBe(200);
    expect(set.body.subjects).toEqual({ default_country: 'NL' });
    expectError(await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { subjects: { default_country: 'XX' } } }), 422, 'VALIDATION_ERROR');

    const found = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: national } });
    expect(found.status).toBe(202);
    expect(found.body).toMatchObject({ matched: 1, subject_ids: [dutch.id] });
    await exportReady(t.token, found.body.export_id);
    // Not a valid Dutch number: a clear 422, not a guess.
    const invalid = await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: '0012 34' } });
    expectError(invalid, 422, 'VALIDATION_ERROR');
    // The other tenant's setting is its own: there the same number is still refused.
    expect((await api.request('/api/v1/privacy/settings', { token: other.token })).body.subjects).toEqual({ default_country: null });
    expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: other.token, json: { subject_id: national } }), 422, 'VALIDATION_ERROR');
    // Cleared again, for the tests after this one.
    expect((await api.request('/api/v1/privacy/settings', { method: 'PUT', token: t.token, json: { subjects: { default_country: null } } })).body.subjects).toEqual({
      default_country: null,
    });
  });

  it("answers 404 for unknown subjects and for another tenant's subject, export and erasure", async () => {
    expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: randomUUID(), format: 'json' } }), 404, 'NOT_FOUND');
    expectError(
      await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: 'not-a-uuid', format: 'json' } }),
      422,
      'VALIDATION_ERROR',
    );
    expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: other.token, json: { subject_id: alice.id, format: 'json' } }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/privacy/export-subject', { method: 'POST', token: t.token, json: { subject_id: alice.id, format: 'csv' } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request(`/api/v1/privacy/exports/${exportId}`, { token: other.token }), 404, 'NOT_FOUND');
    expectError(await api.request('/api/v1/privacy/exports/nope', { token: t.token }), 404, 'NOT_FOUND');
    expectError(
      await api.request('/api/v1/privacy/erase-subject', { method: 'POST', token: other.token, json: { subject_id: alice.id, reason: 'request', preserve_audit: true } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api.request('/api/v1/privacy/erase-subject', { method: 'POST', token: t.token, json: { subject_id: randomUUID(), reason: 'request', preserve_audit: true } }),
      404,
      'NOT_FOUND',
    );
  });

  it('erases with preserve_audit: no trace of the name, phone or email anywhere, the hash kept, the chain valid', async () => {
    const exportKeys = (await api.deps.db('privacy_exports').where({ subject_id: alice.id }).pluck('object_key')) as string[];
    expect(exportKeys.length).toBe(2);
    expect((await bucketObjectsContaining(`privacy-exports/${t.tenantId}/`, [alice.email])).sort()).toEqual([...exportKeys].sort());
    const res = await api.request('/api/v1/privacy/erase-subject', {
      method: 'POST',
      token: t.token,
      json: { subject_id: alice.id, reason: 'GDPR art. 17 request', preserve_audit: true },
    });
    expect(res.status).toBe(202);
    const erasureId = res.body.erasure_id;
    const done = await untilValue(async () => {
      const r = await api.request(`/api/v1/privacy/erasures/${erasureId}`, { token: t.token });
      return r.body.status === 'completed' ? r.body : null;
    });
    expect(done.counts).toEqual({ messages: 2, conversations: 1, maintenance_tasks: 1, privacy_exports: 2, audit_trail: 5, contact: 1, csat_responses: 1, extracted_records: 1 });
    expectError(await api.request(`/api/v1/privacy/erasures/${erasureId}`, { token: other.token }), 404, 'NOT_FOUND');

    for (const needle of [alice.name, alice.phone, alice.email]) expect(await tablesContaining(needle)).toEqual([]);
    // Nor did the erasure's own workflow ever carry them.
    await expectNoPersonalData(await api.deps.temporal.client(), workflowIds.privacyErasure(t.tenantId, erasureId), erasureId, [alice.name, alice.phone, alice.email]);
    for (const key of exportKeys) await expect(api.deps.objectStore.client.statObject(api.deps.objectStore.bucket, key)).rejects.toThrow();
    expect(await bucketObjectsContaining(`privacy-exports/${t.tenantId}/`, [alice.name, alice.phone, alice.email])).toEqual([]);
    // Bob untouched.
    expect(await tablesContaining(bob.phone)).toEqual(expect.arrayContaining(['contacts.phone', 'messages.body', 'maintenance_tasks.notes']));
    expect(await api.deps.db('messages').where({ conversation_id: bob.conversationId }).count({ n: '*' }).first()).toEqual({ n: '2' });
    // The CSAT score stays for the aggregates, without the person or their comment; the extracted record goes.
    expect(await api.deps.db('csat_responses').where({ id: alice.csatResponseId }).first('contact_id', 'comment', 'score')).toEqual({ contact_id: null, comment: null, score: 4 });
    expect(await api.deps.db('extracted_records').where({ id: alice.extractedRecordId }).first()).toBeUndefined();
    expect(await api.deps.db('extracted_records').where({ id: bob.extractedRecordId }).first('subject_contact_id')).toEqual({ subject_contact_id: bob.id });
    // The task stays, unlinked and without the notes about the person.
    expect(await api.deps.db('maintenance_tasks').where({ id: alice.taskId }).first('contact_id', 'notes', 'title')).toEqual({
      contact_id: null,
      notes: null,
      title: 'Pump leak reported by a visitor',
    });

    const hash = await subjectHash(api.deps.db, t.tenantId, alice.id);
    const audit = await api.deps.db('audit_log').where({ tenant_id: t.tenantId, subject_hash: hash }).select('subject_ref');
    expect(audit.length).toBe(5);
    expect(audit.every((a: any) => a.subject_ref === null)).toBe(true);
    expect(await api.deps.db('audit_log').where({ tenant_id: t.tenantId, subject_ref: alice.id }).count({ n: '*' }).first()).toEqual({ n: '0' });
    const verify = await api.request('/api/v1/audit/verify', { token: t.token });
    expect(verify.body).toMatchObject({ valid: true });

    // Twice is harmless: the same erasure answers.
    const twice = await api.request('/api/v1/privacy/erase-subject', { method: 'POST', token: t.token, json: { subject_id: alice.id, reason: 'again', preserve_audit: true } });
    expect(twice.status).toBe(202);
    expect(twice.body.erasure_id).toBe(erasureId);
  });

  it('erases without preserve_audit: the audit hash goes too, and the chain still verifies', async () => {
    const res = await api.request('/api/v1/privacy/erase-subject', { method: 'POST', token: t.token, json: { subject_id: bob.id, reason: 'request', preserve_audit: false } });
    expect(res.status).toBe(202);
    await untilValue(async () => (await api.request(`/api/v1/privacy/erasures/${res.body.erasure_id}`, { token: t.token })).body.status === 'completed');
    const hash = await subjectHash(api.deps.db, t.tenantId, bob.id);
    expect(await api.deps.db('audit_log').where({ tenant_id: t.tenantId, subject_hash: hash }).count({ n: '*' }).first()).toEqual({ n: '0' });
    for (const needle of [bob.name, bob.phone, bob.email]) expect(await tablesContaining(needle)).toEqual([]);
    expect((await api.request('/api/v1/audit/verify', { token: t.token })).body).toMatchObject({ valid: true });
  });

  it("deletes an expired export's ZIP from the store (the sweep's backstop for exports whose workflow did not)", async () => {
    const activities = createPrivacyExportActivities({ db: api.deps.db, objectStore: api.deps.objectStore });
    const { bucket, client } = api.deps.objectStore;
    const [expiredRow] = await api.deps
      .db('privacy_exports')
      .insert({ tenant_id: other.tenantId, subject_id: randomUUID(), status: 'ready', expires_at: daysAgo(0.01) })
      .returning('id');
    const [liveRow] = await api.deps.db('privacy_exports').insert({ tenant_id: other.tenantId, subject_id: randomUUID(), status: 'ready' }).returning('id');
    const keyOf = (id: string) => `privacy-exports/${other.tenantId}/${id}.zip`;
    for (const id of [expiredRow.id, liveRow.id]) {
      await client.putObject(bucket, keyOf(id), Buffer.from('zip'));
      await api.deps
        .db('privacy_exports')
        .where({ id })
        .update({ object_key: keyOf(id) });
    }
    let deleted = 0;
    for (;;) {
      const batch = await activities.deleteExpiredExportArchives({ now: new Date().toISOString() });
      deleted += batch.deleted;
      if (!batch.more) break;
    }
    expect(deleted).toBeGreaterThanOrEqual(1);
    await expect(client.statObject(bucket, keyOf(expiredRow.id))).rejects.toThrow();
    expect(await api.deps.db('privacy_exports').where({ id: expiredRow.id }).first('object_key')).toEqual({ object_key: null });
    // An export whose link still runs keeps its ZIP.
    expect((await client.statObject(bucket, keyOf(liveRow.id))).size).toBe(3);
    await api.deps.db('privacy_exports').whereIn('id', [expiredRow.id, liveRow.id]).delete();
    await client.removeObject(bucket, keyOf(liveRow.id));
  });
});

describe('purge-old', () => {
  it('deletes old rows per category at once, never audit rows younger than 365 days', async () => {
    const p = await createTenant(api);
    const db = api.deps.db;
    const [asset] = await db('assets').insert({ tenant_id: p.tenantId, name: 'Pump', type: 'pump' }).returning('id');
    const event = (days: number) => ({
      tenant_id: p.tenantId,
      asset_id: asset.id,
      event_type: 'door.opened',
      ts: daysAgo(days),
      sender_event_id: randomUUID(),
      received_at: daysAgo(days),
    });
    await db('machine_events').insert([event(200), event(100), event(10)]);
    const contact = await seedSubject(p.tenantId, 'Carol');
    await db('conversations')
      .where({ id: contact.conversationId })
      .update({ started_at: daysAgo(130), status: 'closed', closed_at: daysAgo(120) });
    // An open conversation started long ago stays; only its old messages go.
    const [open] = await db('conversations')
      .insert({ tenant_id: p.tenantId, agent_id: randomUUID(), contact_id: contact.id, channel: 'email', started_at: daysAgo(300) })
      .returning('id');
    await db('messages').insert([
      { tenant_id: p.tenantId, conversation_id: open.id, direction: 'inbound', body: 'old', created_at: daysAgo(299) },
      { tenant_id: p.tenantId, conversation_id: open.id, direction: 'inbound', body: 'recent', created_at: daysAgo(2) },
    ]);
    await db('messages')
      .where({ conversation_id: contact.conversationId })
      .update({ created_at: daysAgo(120) });
    await db('extracted_records')
      .where({ id: contact.extractedRecordId })
      .update({ created_at: daysAgo(120) });
    expectError(await api.request('/api/v1/privacy/purge-old', { method: 'POST', token: p.token, json: { older_than: '90 days' } }), 422, 'VALIDATION_ERROR');
    expectError(await api.request('/api/v1/privacy/purge-old', { method: 'POST', token: p.token, json: { older_than: '2999-01-01' } }), 422, 'VALIDATION_ERROR');

    const res = await api.request('/api/v1/privacy/purge-old', { method: 'POST', token: p.token, json: { older_than: 'P90D' } });
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({
      messages: 3,
      conversations: 1,
      audit_trail: 0,
      machine_events: 2,
      alerts: 0,
      extracted_records: 1,
      extractions: 0,
      tool_calls: 0,
      sensor_readings: 0,
      outbox_events: 0,
    });
    expect(await db('extracted_records').where({ id: contact.extractedRecordId }).first()).toBeUndefined();
    expect(await db('messages').where({ conversation_id: open.id }).pluck('body')).toEqual(['recent']);
    expect(new Date(res.body.cutoff).getTime()).toBeCloseTo(daysAgo(90).getTime(), -4);
    expect(new Date(res.body.audit_cutoff).getTime()).toBeLessThan(daysAgo(365).getTime());
    expect(await db('machine_events').where({ tenant_id: p.tenantId }).count({ n: '*' }).first()).toEqual({ n: '1' });
    expect((await api.request('/api/v1/audit/verify', { token: p.token })).body.valid).toBe(true);
  });
});

describe('audit retention', () => {
  it('deletes audit rows past 365 days from the head of the chain, which still verifies; younger rows are refused', async () => {
    const db = api.deps.db;
    const { randomBytes } = await import('node:crypto');
    const [tenant] = await db('tenants')
      .insert({ name: 'Old', slug: `old-${randomUUID()}`, plan: 'free', audit_salt: randomBytes(16) })
      .returning('id');
    const entry = (occurredAt: Date) => ({
      tenantId: tenant.id,
      actor: { type: 'system' as const, id: null },
      action: 'x.done',
      resourceType: 'x',
      resourceId: null,
      requestId: null,
      occurredAt,
    });
    for (const age of [500, 400, 100, 0]) await db.transaction((tx) => appendAudit(tx, entry(daysAgo(age))));
    const audit = categoryByName('audit_trail');
    const retention = audit.retention!;
    const now = new Date();
    await expect(deleteExpiredBatch(db, tenant.id, { ...audit, retention }, [{ before: daysAgo(30) }], 10)).rejects.toThrow(/append-only/);
    expect(await deleteExpiredBatch(db, tenant.id, { ...audit, retention }, [{ before: clampAuditCutoff(daysAgo(30), now) }], 10)).toBe(2);
    expect(await db('audit_log').where({ tenant_id: tenant.id }).orderBy('seq').pluck('seq')).toEqual(['3', '4']);
    expect(await verifyTenantChain(db, tenant.id)).toMatchObject({ valid: true, checked: 2 });
  });
  it('no session setting lifts the append-only guard: deletes pass only through the purge function, owned by a role nobody can log in as or become', async () => {
    const db = api.deps.db;
    const { randomBytes } = await import('node:crypto');
    const [tenant] = await db('tenants')
      .insert({ name: 'Guarded', slug: `guarded-${randomUUID()}`, plan: 'free', audit_salt: randomBytes(16) })
      .returning('id');
    await db.transaction((tx) =>
      appendAudit(tx, {
        tenantId: tenant.id,
        actor: { type: 'system', id: null },
        action: 'x.done',
        resourceType: 'x',
        resourceId: null,
        requestId: null,
        occurredAt: daysAgo(500),
      }),
    );
    // The setting that used to open the guard opens nothing now, even for rows past 365 days.
    await expect(
      db.transaction(async (tx) => {
        await tx.raw(`set local app.audit_retention_purge = 'on'`);
        await tx('audit_log').where({ tenant_id: tenant.id }).delete();
      }),
    ).rejects.toThrow(/append-only/);
    expect(await db('audit_log').where({ tenant_id: tenant.id }).count({ n: '*' }).first()).toEqual({ n: '1' });

    const role = (
      await db.raw(`select rolcanlogin, (select count(*) from pg_auth_members m where m.roleid = r.oid)::int as members from pg_roles r where rolname = 'audit_purger'`)
    ).rows[0];
    expect(role).toEqual({ rolcanlogin: false, members: 0 });
    const fn = (
      await db.raw(`
      select pg_get_userbyid(p.proowner) as owner, p.prosecdef as security_definer,
             has_function_privilege('public', p.oid, 'execute') as public_execute
      from pg_proc p where p.proname = 'audit_log_purge_expired'`)
    ).rows;
    expect(fn).toEqual([{ owner: 'audit_purger', security_definer: true, public_execute: false }]);

    // The function itself keeps the 365-day floor and the tenant filter.
    await expect(db.raw('select audit_log_purge_expired(?, null, now(), 10)', [randomUUID()])).resolves.toBeTruthy();
    expect((await db.raw('select audit_log_purge_expired(?, null, ?, 10) as n', [tenant.id, daysAgo(400)])).rows[0].n).toBe(1);
    expect(await db('audit_log').where({ tenant_id: tenant.id }).count({ n: '*' }).first()).toEqual({ n: '0' });
  });
});

describe('retention of every copy of machine data (issue 21)', () => {
  const reading = (tenantId: string, assetId: string, days: number) => ({
    tenant_id: tenantId,
    asset_id: assetId,
    parameter: 'temperature',
    ts: daysAgo(days),
    value: 40,
    sender_event_id: randomUUID(),
    received_at: daysAgo(days),
  });

  it('expires only dispatched outbox rows: an event still owed to a webhook or an agent stays', async () => {
    const db = api.deps.db;
    const u = await createTenant(api);
    const outbox = categoryByName('outbox_events');
    // Inside one uncommitted transaction, so the running dispatcher never sees the undispatched row.
    const rollback = new Error('rollback');
    const checked = db.transaction(async (tx) => {
      const row = (days: number, dispatched: boolean) => ({
        tenant_id: u.tenantId,
        type: 'machine.cycle.done',
        data: {},
        occurred_at: daysAgo(days),
        created_at: daysAgo(days),
        dispatched_at: dispatched ? daysAgo(days) : null,
      });
      const [oldDone, oldOwed, recent] = await tx('outbox_events')
        .insert([row(100, true), row(100, false), row(10, true)])
        .returning('id');
      expect(await deleteExpiredBatch(tx, u.tenantId, { ...outbox, retention: outbox.retention! }, [{ before: daysAgo(90) }], 100)).toBe(1);
      const left = await tx('outbox_events').whereIn('id', [oldDone.id, oldOwed.id, recent.id]).pluck('id');
      expect(left.sort()).toEqual([oldOwed.id, recent.id].sort());
      throw rollback;
    });
    await expect(checked).rejects.toBe(rollback);
  });

  it('the sweep expires readings and dispatched outbox rows with machine_events, per tenant setting, never another tenant’s', async () => {
    const db = api.deps.db;
    const [r, keep] = await Promise.all([createTenant(api), createTenant(api)]);
    // The other tenant keeps machine data for a year: its 100-day-old rows must stay.
    expect((await api.request('/api/v1/privacy/settings', { method: 'PUT', token: keep.token, json: { retention: { machine_events_days: 365 } } })).status).toBe(200);
    const [asset] = await db('assets').insert({ tenant_id: r.tenantId, name: 'Press', type: 'press' }).returning('id');
    const [keptAsset] = await db('assets').insert({ tenant_id: keep.tenantId, name: 'Press', type: 'press' }).returning('id');
    const [oldReading, recentReading] = [reading(r.tenantId, asset.id, 100), reading(r.tenantId, asset.id, 20)];
    const othersReading = reading(keep.tenantId, keptAsset.id, 100);
    await db('sensor_readings').insert([oldReading, recentReading, othersReading]);
    const event = (tenantId: string, days: number) => ({
      tenant_id: tenantId,
      type: 'machine.cycle.done',
      data: { n: 1 },
      occurred_at: daysAgo(days),
      created_at: daysAgo(days),
      dispatched_at: daysAgo(days),
    });
    const [oldEvent, recentEvent, othersEvent] = await db('outbox_events')
      .insert([event(r.tenantId, 100), event(r.tenantId, 20), event(keep.tenantId, 100)])
      .returning('id');

    const client = await api.deps.temporal.client();
    await client.schedule.getHandle(RETENTION_SCHEDULE.id).trigger();
    await untilValue(
      async () =>
        !(await db('sensor_readings').where({ tenant_id: r.tenantId, sender_event_id: oldReading.sender_event_id }).first('ts')) &&
        !(await db('outbox_events').where({ id: oldEvent.id }).first('id')),
      'the old reading and event purged',
      60_000,
    );

    expect(await db('sensor_readings').where({ tenant_id: r.tenantId }).pluck('sender_event_id')).toEqual([recentReading.sender_event_id]);
    expect(await db('sensor_readings').where({ tenant_id: keep.tenantId }).pluck('sender_event_id')).toEqual([othersReading.sender_event_id]);
    expect(
      await db('outbox_events')
        .whereIn('id', [oldEvent.id, recentEvent.id, othersEvent.id])
        .pluck('id')
        .then((ids) => ids.sort()),
    ).toEqual([recentEvent.id, othersEvent.id].sort());
  });
});

describe('retention sweep', () => {
  it('runs from the Schedule with each tenant’s settings, and a lowered value is not retroactive', async () => {
    const r = await createTenant(api);
    const db = api.deps.db;
    const [asset] = await db('assets').insert({ tenant_id: r.tenantId, name: 'Press', type: 'press' }).returning('id');
    const ids: Record<string, string> = {};
    for (const age of [100, 60, 20]) {
      const [row] = await db('machine_events')
        .insert({ tenant_id: r.tenantId, asset_id: asset.id, event_type: 'cycle.done', ts: daysAgo(age), sender_event_id: randomUUID(), received_at: daysAgo(age) })
        .returning('id');
      ids[age] = row.id;
    }
    // 90 → 30 days: the 60-day-old event was past 30 days at the change: it stays until 90.
    const put = await api.request('/api/v1/privacy/settings', { method: 'PUT', token: r.token, json: { retention: { machine_events_days: 30 } } });
    expect(put.status).toBe(200);

    const client = await api.deps.temporal.client();
    const schedule = client.schedule.getHandle(RETENTION_SCHEDULE.id);
    expect((await schedule.describe()).action).toMatchObject({ workflowType: RETENTION_SCHEDULE.workflowType });
    await schedule.trigger();
    await untilValue(async () => !(await db('machine_events').where({ id: ids[100] }).first('id')), 'the old machine event purged', 60_000);
    const left = await db('machine_events').where({ tenant_id: r.tenantId }).pluck('id');
    expect(left.sort()).toEqual([ids[60], ids[20]].sort());
  });
});
