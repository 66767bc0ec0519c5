import { randomUUID } from 'node:crypto';
import { storeMessageBody } from '../../db/queries/conversations';
import { tenantScope } from '../../db/tenant-scope';
import { createTenant, createUser, expectError, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { captureServiceLogs, LogCapture } from '../support/log-capture';
import { startSmtpTestServer, SmtpTestServer } from '../support/smtp-test-server';

const SMTP_PASSWORD = `smtp-pw-${randomUUID()}`;
const WA_TOKEN = `EAAG-wa-token-${randomUUID()}`;

let api: TestApi;
let logs: LogCapture;
let smtp: SmtpTestServer;
let tenant: TestTenant;
let other: TestTenant;
/** Every response text of this file, scanned for secrets at the end. */
const seen: string[] = [];

async function call(t: TestTenant, path: string, method = 'GET', json?: unknown): Promise<TestResponse> {
  const res = await api.request(path, { method, token: t.token, json });
  seen.push(res.text);
  return res;
}

async function emailAccount(t: TestTenant): Promise<string> {
  const res = await call(t, '/api/v1/email/accounts', 'POST', {
    name: 'Support',
    email_address: 'support@plant.example.com',
    smtp_host: smtp.host,
    smtp_port: smtp.port,
    smtp_secure: false,
    username: smtp.username,
    password: SMTP_PASSWORD,
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function whatsappNumber(t: TestTenant): Promise<string> {
  const phoneNumberId = String(Math.floor(1e11 + Math.random() * 9e11));
  const res = await call(t, '/api/v1/whatsapp/numbers', 'POST', { display_phone_number: '+34600111222', phone_number_id: phoneNumberId, access_token: WA_TOKEN });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function tool(t: TestTenant, name = `tool_${randomUUID().slice(0, 8)}`): Promise<string> {
  const res = await call(t, '/api/v1/tools', 'POST', { name, description: 'Health of an asset', kind: 'built_in', builtin: 'get_asset_health' });
  expect(res.status).toBe(201);
  return res.body.id;
}

const machineBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Vibration watcher',
  type: 'machine',
  system_prompt: 'Watch vibration alarms and open tasks.',
  model: 'built-in',
  temperature: 0.3,
  tools: [],
  trigger_config: { event_types: ['vibration.threshold_exceeded'], cooldown_minutes: 30 },
  ...extra,
});

beforeAll(async () => {
  smtp = await startSmtpTestServer('mailer@plant.example.com', SMTP_PASSWORD);
  logs = captureServiceLogs();
  // Every log line, request logs included, so the scan below sees what production would write.
  api = await startTestApi({ logLevel: 'trace' });
  [tenant, other] = await Promise.all([createTenant(api), createTenant(api)]);
});
afterAll(async () => {
  logs.stop();
  await api.close();
  await smtp.close();
});

describe('agents: create by type', () => {
  it('creates one agent of each type: 201 with id, name, type, status active, created_at', async () => {
    const accountId = await emailAccount(tenant);
    const numberId = await whatsappNumber(tenant);
    const toolId = await tool(tenant);
    const bodies = [
      { name: 'WA bot', type: 'whatsapp', system_prompt: 'Answer plant visitors.', whatsapp_number_id: numberId, model: 'built-in', temperature: 0, tools: [toolId] },
      { name: 'Mail bot', type: 'email', system_prompt: 'Answer supplier mail.', email_account_id: accountId, model: 'built-in', temperature: 2, tools: [] },
      machineBody(),
    ];
    for (const body of bodies) {
      const res = await call(tenant, '/api/v1/agents', 'POST', body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: expect.any(String), name: body.name, type: body.type, status: 'active', created_at: expect.any(String) });
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
      const got = await call(tenant, `/api/v1/agents/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ ...body, status: 'active' });
    }
  });

  it('defaults model and temperature when omitted', async () => {
    const res = await call(tenant, '/api/v1/agents', 'POST', {
      name: 'Minimal',
      type: 'machine',
      system_prompt: 'x',
      trigger_config: { event_types: ['task.created'], cooldown_minutes: 0 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ model: 'built-in', temperature: 0.2, tools: [] });
  });

  it.each([
    ['a whatsapp agent without whatsapp_number_id', { name: 'a', type: 'whatsapp', system_prompt: 'x' }, 'body.whatsapp_number_id'],
    ['an email agent without email_account_id', { name: 'a', type: 'email', system_prompt: 'x' }, 'body.email_account_id'],
    ['a machine agent without trigger_config', { name: 'a', type: 'machine', system_prompt: 'x' }, 'body.trigger_config'],
    ["a machine agent with another type's field", machineBody({ email_account_id: randomUUID() }), 'body.email_account_id'],
    ['an undotted event type', machineBody({ trigger_config: { event_types: ['vibration'], cooldown_minutes: 5 } }), 'body.trigger_config.event_types.0'],
    ['an empty event type list', machineBody({ trigger_config: { event_types: [], cooldown_minutes: 5 } }), 'body.trigger_config.event_types'],
    ['cooldown_minutes above 10080', machineBody({ trigger_config: { event_types: ['task.created'], cooldown_minutes: 10081 } }), 'body.trigger_config.cooldown_minutes'],
    ['a negative cooldown_minutes', machineBody({ trigger_config: { event_types: ['task.created'], cooldown_minutes: -1 } }), 'body.trigger_config.cooldown_minutes'],
    ['a fractional cooldown_minutes', machineBody({ trigger_config: { event_types: ['task.created'], cooldown_minutes: 1.5 } }), 'body.trigger_config.cooldown_minutes'],
    ['temperature above 2', machineBody({ temperature: 2.01 }), 'body.temperature'],
    ['temperature below 0', machineBody({ temperature: -0.1 }), 'body.temperature'],
    ['no system_prompt', { ...machineBody(), system_prompt: undefined }, 'body.system_prompt'],
    ['an unknown type', machineBody({ type: 'sms' }), 'body.type'],
    ['a status in the create body', machineBody({ status: 'inactive' }), 'body.status'],
  ])('refuses %s with 422 naming the field', async (_label, body, field) => {
    const before = await api.deps.db('agents').where({ tenant_id: tenant.tenantId }).count({ n: '*' });
    const res = await call(tenant, '/api/v1/agents', 'POST', body);
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    const after = await api.deps.db('agents').where({ tenant_id: tenant.tenantId }).count({ n: '*' });
    expect(after).toEqual(before);
  });

  it('accepts the bounds: cooldown 0 and 10080, temperature 0 and 2', async () => {
    for (const [cooldown, temperature] of [
      [0, 0],
      [10080, 2],
    ]) {
      const res = await call(
        tenant,
        '/api/v1/agents',
        'POST',
        machineBody({ temperature, trigger_config: { event_types: ['task.created', 'asset.alert_raised'], cooldown_minutes: cooldown } }),
      );
      expect(res.status).toBe(201);
    }
  });

  it("refuses tools that are not the tenant's: unknown, another tenant's, or not ids", async () => {
    const foreignTool = await tool(other);
    for (const tools of [[randomUUID()], [foreignTool], ['get_asset_health']]) {
      const res = await call(tenant, '/api/v1/agents', 'POST', machineBody({ tools }));
      expectError(res, 422, 'TOOL_NOT_FOUND');
      expect(res.body.tool_ids).toEqual(tools);
    }
  });
});

describe('agents: channel rules', () => {
  it('an email agent needs an existing, active email account of the tenant', async () => {
    const inactive = await emailAccount(tenant);
    expect((await call(tenant, `/api/v1/email/accounts/${inactive}`, 'PUT', { status: 'inactive' })).status).toBe(200);
    const foreign = await emailAccount(other);
    const body = (email_account_id: string) => ({ name: 'Mail', type: 'email', system_prompt: 'x', email_account_id });

    const inactiveRes = await call(tenant, '/api/v1/agents', 'POST', body(inactive));
    expectError(inactiveRes, 422, 'EMAIL_ACCOUNT_INACTIVE');
    expect(inactiveRes.body.field).toBe('body.email_account_id');
    expectError(await call(tenant, '/api/v1/agents', 'POST', body(foreign)), 422, 'EMAIL_ACCOUNT_NOT_FOUND');
    expectError(await call(tenant, '/api/v1/agents', 'POST', body(randomUUID())), 422, 'EMAIL_ACCOUNT_NOT_FOUND');
    expectError(await call(tenant, '/api/v1/agents', 'POST', body('not-a-uuid')), 422, 'EMAIL_ACCOUNT_NOT_FOUND');
    expect(await api.deps.db('agents').where({ email_account_id: inactive }).orWhere({ email_account_id: foreign })).toEqual([]);
  });

  it('a whatsapp agent needs an active number of the tenant', async () => {
    const foreign = await whatsappNumber(other);
    const inactive = await whatsappNumber(tenant);
    await call(tenant, `/api/v1/whatsapp/numbers/${inactive}`, 'PUT', { status: 'inactive' });
    const body = (whatsapp_number_id: string) => ({ name: 'WA', type: 'whatsapp', system_prompt: 'x', whatsapp_number_id });
    expectError(await call(tenant, '/api/v1/agents', 'POST', body(foreign)), 422, 'WHATSAPP_NUMBER_NOT_FOUND');
    expectError(await call(tenant, '/api/v1/agents', 'POST', body(inactive)), 422, 'WHATSAPP_NUMBER_INACTIVE');
  });

  it('moves the agents of a deactivated email account to error and back when it is re-activated', async () => {
    const accountId = await emailAccount(tenant);
    const mk = async (name: string) => (await call(tenant, '/api/v1/agents', 'POST', { name, type: 'email', system_prompt: 'x', email_account_id: accountId })).body.id;
    const [working, paused] = [await mk('working'), await mk('paused')];
    expect((await call(tenant, `/api/v1/agents/${paused}`, 'PUT', { status: 'inactive' })).body.status).toBe('inactive');

    expect((await call(tenant, `/api/v1/email/accounts/${accountId}`, 'PUT', { status: 'inactive' })).body.status).toBe('inactive');
    expect((await call(tenant, `/api/v1/agents/${working}`)).body.status).toBe('error');
    expect((await call(tenant, `/api/v1/agents/${paused}`)).body.status).toBe('inactive');
    // An agent cannot be switched on while its account is off.
    expectError(await call(tenant, `/api/v1/agents/${paused}`, 'PUT', { status: 'active' }), 422, 'EMAIL_ACCOUNT_INACTIVE');
    const changed = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'agent.status_changed' }).whereRaw(`data->>'agent_id' = ?`, [working]);
    expect(changed.map((e) => e.data)).toEqual([{ agent_id: working, status: 'error', reason: 'email_channel_inactive' }]);

    // Re-activation runs the SMTP handshake again.
    const attempts = smtp.authAttempts;
    expect((await call(tenant, `/api/v1/email/accounts/${accountId}`, 'PUT', { status: 'active' })).body.status).toBe('active');
    expect(smtp.authAttempts).toBe(attempts + 1);
    expect((await call(tenant, `/api/v1/agents/${working}`)).body.status).toBe('active');
    expect((await call(tenant, `/api/v1/agents/${paused}`)).body.status).toBe('inactive');
  });

  it('repairs an agent in error by moving it to an active account', async () => {
    const broken = await emailAccount(tenant);
    const fine = await emailAccount(tenant);
    const agent = (await call(tenant, '/api/v1/agents', 'POST', { name: 'm', type: 'email', system_prompt: 'x', email_account_id: broken })).body.id;
    await call(tenant, `/api/v1/email/accounts/${broken}`, 'PUT', { status: 'inactive' });
    expect((await call(tenant, `/api/v1/agents/${agent}`)).body.status).toBe('error');
    const moved = await call(tenant, `/api/v1/agents/${agent}`, 'PUT', { email_account_id: fine });
    expect(moved.body).toMatchObject({ email_account_id: fine, status: 'active' });
  });
});

describe('agents: list, update, delete', () => {
  it('lists with type and status filters and a default page of 20', async () => {
    const t = await createTenant(api);
    for (let i = 0; i < 22; i += 1) {
      const res = await call(t, '/api/v1/agents', 'POST', machineBody({ name: `m${i}` }));
      expect(res.status).toBe(201);
    }
    const accountId = await emailAccount(t);
    const mail = (await call(t, '/api/v1/agents', 'POST', { name: 'mail', type: 'email', system_prompt: 'x', email_account_id: accountId })).body.id;
    await call(t, `/api/v1/agents/${mail}`, 'PUT', { status: 'inactive' });

    const page = await call(t, '/api/v1/agents');
    expect({ total: page.body.total, skip: page.body.skip, limit: page.body.limit, n: page.body.items.length }).toEqual({ total: 23, skip: 0, limit: 20, n: 20 });
    const rest = await call(t, '/api/v1/agents?skip=20');
    expect(rest.body.items.map((a: { name: string }) => a.name)).toEqual(['m20', 'm21', 'mail']);
    const machines = await call(t, '/api/v1/agents?type=machine&limit=100');
    expect(machines.body.total).toBe(22);
    const inactive = await call(t, '/api/v1/agents?status=inactive');
    expect(inactive.body.items.map((a: { id: string }) => a.id)).toEqual([mail]);
    expect((await call(t, '/api/v1/agents?type=email&status=active')).body.total).toBe(0);
    expectError(await call(t, '/api/v1/agents?type=sms'), 422, 'VALIDATION_ERROR');
    expectError(await call(t, '/api/v1/agents?status=error&limit=101'), 422, 'VALIDATION_ERROR');

    // The type-filtered prefixes are the same agents.
    const emailList = await call(t, '/api/v1/email');
    expect(emailList.body.items.map((a: { id: string }) => a.id)).toEqual([mail]);
    expect((await call(t, '/api/v1/whatsapp/agents')).body.total).toBe(0);
    const machineId = page.body.items[0].id;
    expectError(await call(t, `/api/v1/email/${machineId}`), 404, 'NOT_FOUND');
    expect((await call(t, `/api/v1/email/${mail}`)).body.id).toBe(mail);
    // The email accounts list is not taken for an agent id.
    expect((await call(t, '/api/v1/email/accounts')).body.items.map((a: { id: string }) => a.id)).toEqual([accountId]);
  });

  it('creates through /email and /whatsapp/agents with the type implied, and refuses another type there', async () => {
    const accountId = await emailAccount(tenant);
    const created = await call(tenant, '/api/v1/email', 'POST', { name: 'implied', system_prompt: 'x', email_account_id: accountId });
    expect(created.status).toBe(201);
    expect(created.body.type).toBe('email');
    const wrong = await call(tenant, '/api/v1/email', 'POST', machineBody());
    expectError(wrong, 422, 'VALIDATION_ERROR');
    expect(wrong.body.fields.map((f: { field: string }) => f.field)).toContain('body.type');
    const numberId = await whatsappNumber(tenant);
    const wa = await call(tenant, '/api/v1/whatsapp/agents', 'POST', { name: 'wa', system_prompt: 'x', whatsapp_number_id: numberId });
    expect(wa.body).toMatchObject({ type: 'whatsapp', whatsapp_number_id: numberId, status: 'active' });
  });

  it('PUT changes only the fields sent', async () => {
    const toolId = await tool(tenant);
    const created = await call(tenant, '/api/v1/agents', 'POST', machineBody({ tools: [toolId] }));
    const before = (await call(tenant, `/api/v1/agents/${created.body.id}`)).body;
    const res = await call(tenant, `/api/v1/agents/${created.body.id}`, 'PUT', { temperature: 1.5 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, temperature: 1.5, updated_at: expect.any(String) });
    expect(res.body.updated_at >= before.updated_at).toBe(true);

    const trig = await call(tenant, `/api/v1/agents/${created.body.id}`, 'PUT', { trigger_config: { event_types: ['task.created'], cooldown_minutes: 60 }, name: 'renamed' });
    expect(trig.body).toMatchObject({
      name: 'renamed',
      temperature: 1.5,
      tools: [toolId],
      system_prompt: before.system_prompt,
      trigger_config: { event_types: ['task.created'], cooldown_minutes: 60 },
    });

    for (const [body, field] of [
      [{ type: 'email' }, 'body.type'],
      [{ email_account_id: randomUUID() }, 'body.email_account_id'],
      [{ status: 'error' }, 'body.status'],
      [{ temperature: 3 }, 'body.temperature'],
      [{}, 'body'],
    ] as const) {
      const bad = await call(tenant, `/api/v1/agents/${created.body.id}`, 'PUT', body);
      expectError(bad, 422, 'VALIDATION_ERROR');
      expect(bad.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expectError(await call(tenant, `/api/v1/agents/${created.body.id}`, 'PUT', { tools: [randomUUID()] }), 422, 'TOOL_NOT_FOUND');
    expect((await call(tenant, `/api/v1/agents/${created.body.id}`)).body).toEqual(trig.body);
  });

  it('DELETE answers 204 and keeps the conversations and messages', async () => {
    const numberId = await whatsappNumber(tenant);
    const agent = (await call(tenant, '/api/v1/agents', 'POST', { name: 'wa', type: 'whatsapp', system_prompt: 'x', whatsapp_number_id: numberId })).body.id;
    const scope = tenantScope(api.deps.db, tenant.tenantId);
    const [contact] = await scope.insert('contacts', { name: 'Ana', phone: `+3460${Date.now() % 10_000_000}` });
    const [conversation] = await scope.insert('conversations', { agent_id: agent, contact_id: contact.id, channel: 'whatsapp' });
    await storeMessageBody(scope, { conversationId: conversation.id, direction: 'inbound', body: 'Pump 3 is leaking', createdAt: new Date('2026-11-01T10:00:00Z') });
    await storeMessageBody(scope, { conversationId: conversation.id, direction: 'outbound', body: 'A task is open', createdAt: new Date('2026-11-01T10:00:05Z') });

    const del = await call(tenant, `/api/v1/agents/${agent}`, 'DELETE');
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectError(await call(tenant, `/api/v1/agents/${agent}`), 404, 'NOT_FOUND');
    const list = await call(tenant, `/api/v1/conversations?agent_id=${agent}`);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([conversation.id]);
    const messages = await call(tenant, `/api/v1/conversations/${conversation.id}/messages`);
    expect(messages.body.items.map((m: { direction: string; body: string }) => [m.direction, m.body])).toEqual([
      ['inbound', 'Pump 3 is leaking'],
      ['outbound', 'A task is open'],
    ]);
    expect(await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'agent.deleted', resource_id: agent })).toHaveLength(1);
  });

  it('answers 403 PLAN_LIMIT_REACHED past the plan allowance (free: 2 agents)', async () => {
    const free = await createTenant(api, 'free');
    for (let i = 0; i < 2; i += 1) expect((await call(free, '/api/v1/agents', 'POST', machineBody())).status).toBe(201);
    const res = await call(free, '/api/v1/agents', 'POST', machineBody());
    expectError(res, 403, 'PLAN_LIMIT_REACHED');
    expect(res.body).toMatchObject({ resource: 'agents', limit: 2 });
  });

  it("refuses a model the tenant's plan does not include with 422 MODEL_NOT_ALLOWED, on create and update", async () => {
    const starter = await createTenant(api, 'starter');
    const refused = await call(starter, '/api/v1/agents', 'POST', machineBody({ model: 'gpt-4o' }));
    expectError(refused, 422, 'MODEL_NOT_ALLOWED');
    expect(refused.body).toMatchObject({ field: 'body.model', allowed: ['built-in', 'gpt-4o-mini'] });
    expect(refused.body.detail).toMatch(/starter plan does not include the model "gpt-4o"/);
    expect(await api.deps.db('agents').where({ tenant_id: starter.tenantId }).count({ n: '*' }).first()).toEqual({ n: '0' });
    const created = await call(starter, '/api/v1/agents', 'POST', machineBody({ model: 'gpt-4o-mini' }));
    expect(created.status).toBe(201);
    expectError(await call(starter, `/api/v1/agents/${created.body.id}`, 'PUT', { model: 'my-own-finetune' }), 422, 'MODEL_NOT_ALLOWED');
    expect((await call(starter, `/api/v1/agents/${created.body.id}`, 'GET')).body.model).toBe('gpt-4o-mini');
    expect((await call(starter, `/api/v1/agents/${created.body.id}`, 'PUT', { model: 'built-in' })).body.model).toBe('built-in');
    // The enterprise plan includes it; a free tenant has the built-in engine only.
    expect((await call(tenant, '/api/v1/agents', 'POST', machineBody({ model: 'gpt-4o' }))).status).toBe(201);
    const free = await createTenant(api, 'free');
    expectError(await call(free, '/api/v1/agents', 'POST', machineBody({ model: 'gpt-4o-mini' })), 422, 'MODEL_NOT_ALLOWED');
  });

  it('takes the per-plan lists of the operator (LLM_PLAN_MODELS)', async () => {
    const base = api.deps.config;
    const own = await startTestApi({ llm: { ...base.llm, planModels: { ...base.llm.planModels, starter: ['plant-llama-3'] } } });
    try {
      const starter = await createTenant(own, 'starter');
      const post = (model: string) => own.request('/api/v1/agents', { method: 'POST', token: starter.token, json: machineBody({ model }) });
      expect((await post('plant-llama-3')).status).toBe(201);
      expectError(await post('gpt-4o-mini'), 422, 'MODEL_NOT_ALLOWED');
    } finally {
      await own.close();
    }
  });

  it('needs view_agents to read and manage_agents to write', async () => {
    const viewer = await createUser(api, tenant.tenantId, 'viewer');
    expect((await api.request('/api/v1/agents', { token: viewer.token })).status).toBe(200);
    expectError(await api.request('/api/v1/agents', { method: 'POST', token: viewer.token, json: machineBody() }), 403, 'FORBIDDEN');
    expectError(await api.request('/api/v1/tools', { method: 'POST', token: viewer.token, json: {} }), 403, 'FORBIDDEN');
    expectError(await api.request('/api/v1/agents'), 401, 'UNAUTHENTICATED');
  });
});

describe('tenant isolation and secrets', () => {
  it("answers 404 for another tenant's records on every route", async () => {
    const agent = (await call(other, '/api/v1/agents', 'POST', machineBody())).body.id;
    const accountId = await emailAccount(other);
    const mailAgent = (await call(other, '/api/v1/agents', 'POST', { name: 'm', type: 'email', system_prompt: 'x', email_account_id: accountId })).body.id;
    const numberId = await whatsappNumber(other);
    const waAgent = (await call(other, '/api/v1/agents', 'POST', { name: 'w', type: 'whatsapp', system_prompt: 'x', whatsapp_number_id: numberId })).body.id;
    const toolId = await tool(other);
    const scope = tenantScope(api.deps.db, other.tenantId);
    const [contact] = await scope.insert('contacts', { email: `c-${randomUUID()}@example.com` });
    const [conversation] = await scope.insert('conversations', { agent_id: agent, contact_id: contact.id, channel: 'machine' });

    const targets: [string, string, unknown?][] = [];
    for (const [base, id] of [
      ['/api/v1/agents', agent],
      ['/api/v1/email', mailAgent],
      ['/api/v1/whatsapp/agents', waAgent],
    ]) {
      targets.push(['GET', `${base}/${id}`], ['PUT', `${base}/${id}`, { name: 'x' }], ['DELETE', `${base}/${id}`], ['GET', `${base}/${id}/conversations`]);
    }
    for (const [base, id, body] of [
      ['/api/v1/email/accounts', accountId, { name: 'x' }],
      ['/api/v1/whatsapp/numbers', numberId, { status: 'inactive' }],
      ['/api/v1/tools', toolId, { description: 'x' }],
    ] as const) {
      targets.push(['GET', `${base}/${id}`], ['PUT', `${base}/${id}`, body], ['DELETE', `${base}/${id}`]);
    }
    targets.push(['GET', `/api/v1/conversations/${conversation.id}`], ['GET', `/api/v1/conversations/${conversation.id}/messages`]);
    for (const [method, path, body] of targets) {
      const res = await call(tenant, path, method, body);
      expect({ route: `${method} ${path}`, status: res.status, code: res.body?.error_code }).toEqual({ route: `${method} ${path}`, status: 404, code: 'NOT_FOUND' });
    }
    // Lists do not show them either, and nothing changed for the owner.
    expect((await call(tenant, `/api/v1/conversations?agent_id=${agent}`)).body.total).toBe(0);
    expect((await call(other, `/api/v1/agents/${agent}`)).body.name).toBe('Vibration watcher');
    expect((await call(other, `/api/v1/whatsapp/numbers/${numberId}`)).body.status).toBe('active');
    // A malformed id is a 404 too.
    expectError(await call(tenant, '/api/v1/agents/not-a-uuid'), 404, 'NOT_FOUND');
  });

  it('never returns the SMTP password or the WhatsApp token, and stores them encrypted', async () => {
    const accountId = await emailAccount(tenant);
    const numberId = await whatsappNumber(tenant);
    const account = await call(tenant, `/api/v1/email/accounts/${accountId}`);
    expect(account.body).toMatchObject({ has_password: true, username: smtp.username, status: 'active', verified_at: expect.any(String) });
    expect(Object.keys(account.body)).not.toContain('password');
    const number = await call(tenant, `/api/v1/whatsapp/numbers/${numberId}`);
    expect(Object.keys(number.body).sort()).toEqual([
      'business_account_id',
      'created_at',
      'display_phone_number',
      'has_access_token',
      'id',
      'inbound_webhook_configured',
      'phone_number_id',
      'status',
      'updated_at',
    ]);
    await call(tenant, '/api/v1/email/accounts');
    await call(tenant, '/api/v1/whatsapp/numbers');
    await call(tenant, '/api/v1/openapi.json');

    const accountRow = await api.deps.db('email_accounts').where({ id: accountId }).first();
    expect(accountRow.password_encrypted).toMatch(/^v1\./);
    expect(JSON.stringify(accountRow)).not.toContain(SMTP_PASSWORD);
    const numberRow = await api.deps.db('whatsapp_numbers').where({ id: numberId }).first();
    expect(JSON.stringify(numberRow)).not.toContain(WA_TOKEN);
    const audit = await api.deps.db('audit_log').whereIn('resource_id', [accountId, numberId]);
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toMatch(new RegExp(`${SMTP_PASSWORD}|${WA_TOKEN}`));

    expect(seen.length).toBeGreaterThan(50);
    for (const text of seen) {
      expect(text.includes(SMTP_PASSWORD) || text.includes(WA_TOKEN)).toBe(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // pino flushes asynchronously
    const lines = logs.lines();
    expect(lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThan(50);
    // An authenticated request's line names its tenant and user, once each.
    const isList = (l: string) => l.includes('"msg":"request"') && l.includes('"method":"GET"') && l.includes('"path":"/api/v1/whatsapp/numbers"');
    const listLine = lines.find(isList)!;
    expect(JSON.parse(listLine)).toMatchObject({ tenant_id: tenant.tenantId, user_id: tenant.adminUserId, request_id: expect.any(String), status: 200 });
    expect(listLine.match(/"tenant_id"/g)).toHaveLength(1);
    expect(lines.filter((l) => l.includes(SMTP_PASSWORD) || l.includes(WA_TOKEN))).toEqual([]);
  });
});
