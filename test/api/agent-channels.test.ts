import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:net';
import { storeMessageBody } from '../../db/queries/conversations';
import { tenantScope } from '../../db/tenant-scope';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { startSmtpTestServer, SmtpTestServer } from '../support/smtp-test-server';

const SMTP_PASSWORD = `smtp-pw-${randomUUID()}`;

let api: TestApi;
let smtp: SmtpTestServer;
let tenant: TestTenant;

const call = (path: string, method = 'GET', json?: unknown): Promise<TestResponse> => api.request(path, { method, token: tenant.token, json });

const accountBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Support',
  email_address: 'support@plant.example.com',
  smtp_host: smtp.host,
  smtp_port: smtp.port,
  smtp_secure: false,
  username: smtp.username,
  password: SMTP_PASSWORD,
  ...extra,
});

beforeAll(async () => {
  smtp = await startSmtpTestServer('mailer@plant.example.com', SMTP_PASSWORD);
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(async () => {
  await api.close();
  await smtp.close();
});

describe('email accounts: SMTP verification', () => {
  it('verifies a new account with a real handshake (AUTH against the local server)', async () => {
    const attempts = smtp.authAttempts;
    const res = await call('/api/v1/email/accounts', 'POST', accountBody());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active', smtp_port: smtp.port, smtp_secure: false, has_password: true, verified_at: expect.any(String) });
    expect(smtp.authAttempts).toBe(attempts + 1);
  });

  it('refuses an account whose credentials the server rejects, or whose server does not answer, and stores nothing', async () => {
    const wrong = await call('/api/v1/email/accounts', 'POST', accountBody({ password: 'not-the-password' }));
    expectError(wrong, 422, 'EMAIL_ACCOUNT_VERIFICATION_FAILED');
    expect(wrong.body.reason).toBe('EAUTH');

    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await call('/api/v1/email/accounts', 'POST', accountBody({ smtp_port: port }));
    expectError(down, 422, 'EMAIL_ACCOUNT_VERIFICATION_FAILED');
    expect(down.body.reason).toBe('ESOCKET');
    expect(await api.deps.db('email_accounts').where({ tenant_id: tenant.tenantId, smtp_port: port })).toEqual([]);

    // A cloud metadata address is refused before any connection, even in development.
    const metadata = await call('/api/v1/email/accounts', 'POST', accountBody({ smtp_host: '169.254.169.254' }));
    expectError(metadata, 422, 'EMAIL_ACCOUNT_VERIFICATION_FAILED');
    expect(metadata.body.reason).toBe('REFUSED_DESTINATION');
  });

  it('re-verifies when connection settings change, and keeps the old settings when the server refuses', async () => {
    const id = (await call('/api/v1/email/accounts', 'POST', accountBody())).body.id;
    expect((await call(`/api/v1/email/accounts/${id}`, 'PUT', { name: 'Renamed' })).body.name).toBe('Renamed');
    const refused = await call(`/api/v1/email/accounts/${id}`, 'PUT', { password: 'wrong-password' });
    expectError(refused, 422, 'EMAIL_ACCOUNT_VERIFICATION_FAILED');
    // The stored password is still the working one: re-activation verifies with it.
    expect((await call(`/api/v1/email/accounts/${id}`, 'PUT', { status: 'inactive' })).body.status).toBe('inactive');
    expect((await call(`/api/v1/email/accounts/${id}`, 'PUT', { status: 'active' })).body.status).toBe('active');
  });

  it('refuses to delete an account agents use (409), deletes it once they are gone', async () => {
    const id = (await call('/api/v1/email/accounts', 'POST', accountBody())).body.id;
    const agent = (await call('/api/v1/agents', 'POST', { name: 'm', type: 'email', system_prompt: 'x', email_account_id: id })).body.id;
    expectError(await call(`/api/v1/email/accounts/${id}`, 'DELETE'), 409, 'CONFLICT');
    expect((await call(`/api/v1/agents/${agent}`, 'DELETE')).status).toBe(204);
    expect((await call(`/api/v1/email/accounts/${id}`, 'DELETE')).status).toBe(204);
    expectError(await call(`/api/v1/email/accounts/${id}`), 404, 'NOT_FOUND');
  });
});

describe('email accounts: the stored password stays with its SMTP server', () => {
  let collector: SmtpTestServer;
  let manager: (path: string, method?: string, json?: unknown) => Promise<TestResponse>;
  beforeAll(async () => {
    // Another server that would accept the password: the one a manager would like to collect it on.
    collector = await startSmtpTestServer(smtp.username, SMTP_PASSWORD);
    const { token } = await createUser(api, tenant.tenantId, 'manager');
    manager = (path, method = 'GET', json) => api.request(path, { method, token, json });
  });
  afterAll(() => collector.close());

  const row = (id: string) => api.deps.db('email_accounts').where({ id }).first();

  it('refuses a new host, port or TLS mode without the password (422 CREDENTIAL_REQUIRED) and changes nothing', async () => {
    const id = (await call('/api/v1/email/accounts', 'POST', accountBody())).body.id;
    const before = await row(id);
    expect(before.password_destination).toEqual({ smtp_host: smtp.host, smtp_port: smtp.port, smtp_secure: false });
    for (const move of [{ smtp_port: collector.port }, { smtp_host: 'localhost', name: 'Moved' }, { smtp_secure: true }]) {
      const res = await manager(`/api/v1/email/accounts/${id}`, 'PUT', move);
      expectError(res, 422, 'CREDENTIAL_REQUIRED');
      expect(res.body).toMatchObject({ field: 'body.password', moved_fields: Object.keys(move).filter((k) => k !== 'name') });
      expect(res.body.detail).toContain('body.password');
    }
    expect(await row(id)).toEqual(before);
    expect(collector.authAttempts).toBe(0);
  });

  it('moves with the password given in the same request, bound to the new server', async () => {
    const id = (await call('/api/v1/email/accounts', 'POST', accountBody())).body.id;
    const res = await manager(`/api/v1/email/accounts/${id}`, 'PUT', { smtp_port: collector.port, password: SMTP_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ smtp_port: collector.port, has_password: true });
    expect((await row(id)).password_destination).toEqual({ smtp_host: collector.host, smtp_port: collector.port, smtp_secure: false });
    expect(collector.authAttempts).toBe(1);
    // Back, again only with the password.
    expectError(await manager(`/api/v1/email/accounts/${id}`, 'PUT', { smtp_port: smtp.port }), 422, 'CREDENTIAL_REQUIRED');
  });

  it('a server changed behind the API (SQL) never gets the password: re-verification refuses and says which field', async () => {
    const id = (await call('/api/v1/email/accounts', 'POST', accountBody())).body.id;
    await call(`/api/v1/email/accounts/${id}`, 'PUT', { status: 'inactive' });
    await api.deps.db('email_accounts').where({ id }).update({ smtp_port: collector.port });
    const attempts = collector.authAttempts;
    const res = await manager(`/api/v1/email/accounts/${id}`, 'PUT', { status: 'active' });
    expectError(res, 422, 'CREDENTIAL_REQUIRED');
    expect(res.body).toMatchObject({ field: 'body.password', moved_fields: ['smtp_port'] });
    expect(collector.authAttempts).toBe(attempts);
    expect((await row(id)).status).toBe('inactive');
  });
});

describe('WhatsApp numbers', () => {
  const numberBody = (phoneNumberId: string) => ({ display_phone_number: '+34600111222', phone_number_id: phoneNumberId, access_token: `tok-${randomUUID()}` });

  it('registers a number once per tenant (another tenant is neither blocked nor told), validates its fields, and moves its agents with its status', async () => {
    const pnid = String(100000000000 + Math.floor(Math.random() * 1e9));
    const created = await call('/api/v1/whatsapp/numbers', 'POST', numberBody(pnid));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ phone_number_id: pnid, status: 'active', has_access_token: true, business_account_id: null });

    expectError(await call('/api/v1/whatsapp/numbers', 'POST', numberBody(pnid)), 409, 'CONFLICT');
    const other = await createTenant(api);
    expect((await api.request('/api/v1/whatsapp/numbers', { method: 'POST', token: other.token, json: numberBody(pnid) })).status).toBe(201);
    const invalid = await call('/api/v1/whatsapp/numbers', 'POST', { display_phone_number: '600111222', phone_number_id: 'abc' });
    expectError(invalid, 422, 'VALIDATION_ERROR');
    expect(invalid.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['body.access_token', 'body.display_phone_number', 'body.phone_number_id']);

    const agent = (await call('/api/v1/whatsapp/agents', 'POST', { name: 'wa', system_prompt: 'x', whatsapp_number_id: created.body.id })).body.id;
    await call(`/api/v1/whatsapp/numbers/${created.body.id}`, 'PUT', { status: 'inactive' });
    expect((await call(`/api/v1/agents/${agent}`)).body.status).toBe('error');
    await call(`/api/v1/whatsapp/numbers/${created.body.id}`, 'PUT', { status: 'active' });
    expect((await call(`/api/v1/agents/${agent}`)).body.status).toBe('active');
    expectError(await call(`/api/v1/whatsapp/numbers/${created.body.id}`, 'DELETE'), 409, 'CONFLICT');
  });

  it('a new phone_number_id needs the access token in the same request (422 CREDENTIAL_REQUIRED); with it, the token is bound to the new id', async () => {
    const pnid = String(100000000000 + Math.floor(Math.random() * 1e9));
    const id = (await call('/api/v1/whatsapp/numbers', 'POST', numberBody(pnid))).body.id;
    const row = () => api.deps.db('whatsapp_numbers').where({ id }).first();
    const before = await row();
    expect(before.access_token_destination).toEqual({ phone_number_id: pnid });
    const moved = String(Number(pnid) + 1);

    const refused = await call(`/api/v1/whatsapp/numbers/${id}`, 'PUT', { phone_number_id: moved, display_phone_number: '+34600999888' });
    expectError(refused, 422, 'CREDENTIAL_REQUIRED');
    expect(refused.body).toMatchObject({ field: 'body.access_token', moved_fields: ['phone_number_id'] });
    expect(await row()).toEqual(before);
    // The same id again moves nothing.
    expect((await call(`/api/v1/whatsapp/numbers/${id}`, 'PUT', { phone_number_id: pnid })).status).toBe(200);

    const accepted = await call(`/api/v1/whatsapp/numbers/${id}`, 'PUT', { phone_number_id: moved, access_token: `tok-${randomUUID()}` });
    expect(accepted.status).toBe(200);
    expect(accepted.body.phone_number_id).toBe(moved);
    const after = await row();
    expect(after.access_token_destination).toEqual({ phone_number_id: moved });
    expect(after.access_token_encrypted).not.toBe(before.access_token_encrypted);
  });
});

describe('tools', () => {
  const params = { type: 'object', properties: { asset_id: { type: 'string', description: 'Asset id' } }, required: ['asset_id'] };

  it('creates built-in and http tools and refuses invalid kinds, URLs and schemas', async () => {
    const builtIn = await call('/api/v1/tools', 'POST', {
      name: 'asset_health',
      description: 'Health of an asset',
      kind: 'built_in',
      builtin: 'get_asset_health',
      parameters: params,
    });
    expect(builtIn.status).toBe(201);
    expect(builtIn.body).toMatchObject({ kind: 'built_in', builtin: 'get_asset_health', url: null, parameters: params });
    const http = await call('/api/v1/tools', 'POST', {
      name: 'erp_lookup',
      description: 'ERP lookup',
      kind: 'http',
      url: 'https://erp.example.com/api/lookup',
      parameters: params,
    });
    expect(http.body).toMatchObject({ kind: 'http', builtin: null, url: 'https://erp.example.com/api/lookup' });
    expectError(await call('/api/v1/tools', 'POST', { name: 'asset_health', description: 'dup', kind: 'built_in', builtin: 'create_maintenance_task' }), 409, 'CONFLICT');

    const refusals: [Record<string, unknown>, string][] = [
      [{ name: 'a', description: 'x', kind: 'http', url: 'http://erp.example.com/x' }, 'body.url'],
      [{ name: 'a', description: 'x', kind: 'http', url: 'https://127.0.0.1/x' }, 'body.url'],
      [{ name: 'a', description: 'x', kind: 'http', url: 'https://169.254.169.254/latest' }, 'body.url'],
      [{ name: 'a', description: 'x', kind: 'http', url: 'https://user:pw@erp.example.com/' }, 'body.url'],
      [{ name: 'a', description: 'x', kind: 'http' }, 'body.url'],
      [{ name: 'a', description: 'x', kind: 'built_in', builtin: 'drop_database' }, 'body.builtin'],
      [{ name: 'a', description: 'x', kind: 'built_in', builtin: 'get_asset_health', url: 'https://erp.example.com/' }, 'body.url'],
      [{ name: 'Bad Name', description: 'x', kind: 'built_in', builtin: 'get_asset_health' }, 'body.name'],
      [{ name: 'a', description: 'x', kind: 'built_in', builtin: 'get_asset_health', parameters: { type: 'string' } }, 'body.parameters'],
      [{ name: 'a', description: 'x', kind: 'built_in', builtin: 'get_asset_health', parameters: { type: 'object', properties: { n: { type: 'decimal' } } } }, 'body.parameters'],
      [{ name: 'a', description: 'x', kind: 'built_in', builtin: 'get_asset_health', parameters: { type: 'object', properties: {}, required: ['missing'] } }, 'body.parameters'],
    ];
    for (const [body, field] of refusals) {
      const res = await call('/api/v1/tools', 'POST', body);
      expect({ body, status: res.status, fields: res.body.fields?.map((f: { field: string }) => f.field) }).toEqual({ body, status: 422, fields: [field] });
    }
  });

  it('updates the fields sent, keeps kind fixed, and removes a deleted tool from agents', async () => {
    const id = (await call('/api/v1/tools', 'POST', { name: 'create_task', description: 'Open a task', kind: 'built_in', builtin: 'create_maintenance_task' })).body.id;
    const keep = (await call('/api/v1/tools', 'POST', { name: 'keep_me', description: 'Stays', kind: 'built_in', builtin: 'get_asset_health' })).body.id;
    const updated = await call(`/api/v1/tools/${id}`, 'PUT', { description: 'Open a maintenance task' });
    expect(updated.body).toMatchObject({
      name: 'create_task',
      description: 'Open a maintenance task',
      builtin: 'create_maintenance_task',
      parameters: { type: 'object', properties: {} },
    });
    expectError(await call(`/api/v1/tools/${id}`, 'PUT', { kind: 'http' }), 422, 'VALIDATION_ERROR');
    expectError(await call(`/api/v1/tools/${id}`, 'PUT', { url: 'https://erp.example.com/' }), 422, 'VALIDATION_ERROR');

    const agent = (
      await call('/api/v1/agents', 'POST', {
        name: 'm',
        type: 'machine',
        system_prompt: 'x',
        tools: [id, keep],
        trigger_config: { event_types: ['task.created'], cooldown_minutes: 1 },
      })
    ).body.id;
    expect((await call(`/api/v1/tools/${id}`, 'DELETE')).status).toBe(204);
    expect((await call(`/api/v1/agents/${agent}`)).body.tools).toEqual([keep]);
  });
});

describe('conversations', () => {
  it('lists per agent and per contact, newest first and paginated; messages oldest first', async () => {
    const scope = tenantScope(api.deps.db, tenant.tenantId);
    const mk = async () =>
      (await call('/api/v1/agents', 'POST', { name: 'm', type: 'machine', system_prompt: 'x', trigger_config: { event_types: ['task.created'], cooldown_minutes: 1 } })).body.id;
    const [agentA, agentB] = [await mk(), await mk()];
    const [ana] = await scope.insert('contacts', { name: 'Ana', email: `ana-${randomUUID()}@example.com` });
    const [ben] = await scope.insert('contacts', { name: 'Ben', email: `ben-${randomUUID()}@example.com` });
    const started = (day: number) => new Date(Date.UTC(2026, 10, day));
    const rows = await scope.insert('conversations', [
      { agent_id: agentA, contact_id: ana.id, channel: 'machine', started_at: started(1) },
      { agent_id: agentA, contact_id: ben.id, channel: 'machine', started_at: started(2), status: 'closed', closed_at: started(3) },
      { agent_id: agentA, contact_id: ana.id, channel: 'machine', started_at: started(4) },
      { agent_id: agentB, contact_id: ana.id, channel: 'machine', started_at: started(5) },
    ]);
    const ids = rows.map((r) => r.id);

    const perAgent = await call(`/api/v1/agents/${agentA}/conversations?limit=2`);
    expect(perAgent.body).toMatchObject({ total: 3, skip: 0, limit: 2 });
    expect(perAgent.body.items.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    expect(perAgent.body.items[1]).toEqual({
      id: ids[1],
      agent_id: agentA,
      contact_id: ben.id,
      channel: 'machine',
      status: 'closed',
      started_at: started(2).toISOString(),
      closed_at: started(3).toISOString(),
    });
    expect((await call(`/api/v1/agents/${agentA}/conversations?skip=2`)).body.items.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect((await call(`/api/v1/agents/${agentA}/conversations?status=closed`)).body.items.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    const perContact = await call(`/api/v1/conversations?contact_id=${ana.id}`);
    expect(perContact.body.items.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[2], ids[0]]);
    expect((await call(`/api/v1/conversations?contact_id=${ana.id}&agent_id=${agentB}`)).body.total).toBe(1);
    expectError(await call('/api/v1/conversations?contact_id=nope'), 422, 'VALIDATION_ERROR');
    expect((await call(`/api/v1/conversations/${ids[1]}`)).body.status).toBe('closed');
    // An agent of another type is not found under a type-filtered prefix.
    expectError(await call(`/api/v1/email/${agentA}/conversations`), 404, 'NOT_FOUND');
  });

  it("stores message bodies redacted when the tenant's pii.auto_redact is on, as received when off", async () => {
    const t = await createTenant(api);
    const scope = tenantScope(api.deps.db, t.tenantId);
    const agent = (
      await api.request('/api/v1/agents', {
        method: 'POST',
        token: t.token,
        json: { name: 'm', type: 'machine', system_prompt: 'x', trigger_config: { event_types: ['task.created'], cooldown_minutes: 1 } },
      })
    ).body.id;
    const [contact] = await scope.insert('contacts', { phone: '+34600123456' });
    const [conversation] = await scope.insert('conversations', { agent_id: agent, contact_id: contact.id, channel: 'machine' });
    const text = 'Call me at +34 600 123 456 or write to ana.lopez@example.com about order 4711';

    const plain = await storeMessageBody(scope, { conversationId: conversation.id, direction: 'inbound', body: text, createdAt: new Date('2026-11-01T00:00:00Z') });
    expect(plain!.body).toBe(text);
    await api.deps.db('tenant_settings').insert({ tenant_id: t.tenantId, pii_auto_redact: true });
    const redacted = await storeMessageBody(scope, { conversationId: conversation.id, direction: 'inbound', body: text, createdAt: new Date('2026-11-01T00:00:01Z') });
    expect(redacted!.body).toBe('Call me at [redacted:phone] or write to [redacted:email] about order 4711');

    const messages = await api.request(`/api/v1/conversations/${conversation.id}/messages`, { token: t.token });
    expect(messages.body.items.map((m: { body: string }) => m.body)).toEqual([text, redacted!.body]);
  });
});
