import { createHmac, randomUUID } from 'node:crypto';
import { createTenant, expectError, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { captureServiceLogs, LogCapture } from '../support/log-capture';
import { postWhatsapp, whatsappPayload } from '../support/whatsapp-inbound';

const APP_SECRET = `app-secret-${randomUUID()}`;
const VERIFY_TOKEN = `verify-${randomUUID()}`;

let api: TestApi;
let logs: LogCapture;
let tenant: TestTenant;
let numberId: string;
let phoneNumberId: string;
let agentId: string;

const newPhoneNumberId = () => String(100000000000 + Math.floor(Math.random() * 9e11));

const payload = whatsappPayload;
const post = (body: unknown, secret: string | null = APP_SECRET): Promise<TestResponse> => postWhatsapp(api, body, secret);

// Inbound only: the conversation workflow adds the agent's replies meanwhile (conversation-flow.test.ts).
const messagesOf = (tenantId: string) => api.deps.db('messages').where({ tenant_id: tenantId, direction: 'inbound' }).orderBy('created_at');

beforeAll(async () => {
  logs = captureServiceLogs();
  api = await startTestApi({ logLevel: 'trace' });
  tenant = await createTenant(api);
  phoneNumberId = newPhoneNumberId();
  const number = await api.request('/api/v1/whatsapp/numbers', {
    method: 'POST',
    token: tenant.token,
    json: { display_phone_number: '+34600111222', phone_number_id: phoneNumberId, access_token: `tok-${randomUUID()}`, app_secret: APP_SECRET, verify_token: VERIFY_TOKEN },
  });
  expect(number.body.inbound_webhook_configured).toBe(true);
  expect(number.text).not.toContain(APP_SECRET);
  numberId = number.body.id;
  agentId = (await api.request('/api/v1/whatsapp/agents', { method: 'POST', token: tenant.token, json: { name: 'wa', system_prompt: 'x', whatsapp_number_id: numberId } })).body.id;
});
afterAll(async () => {
  logs.stop();
  await api.close();
});

describe('subscription challenge', () => {
  it('echoes the challenge for a registered verify token and refuses any other', async () => {
    const ok = await api.request(`/api/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect({ status: ok.status, text: ok.text, type: ok.headers.get('content-type') }).toEqual({ status: 200, text: '1158201444', type: 'text/plain; charset=utf-8' });
    expectError(await api.request('/api/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=wrong-token-000000&hub.challenge=1'), 403, 'FORBIDDEN');
  });
});

describe('inbound messages', () => {
  it('stores a signed message with its contact, starts one conversation, and emits ids-only events', async () => {
    const from = '34611222333';
    const first = await post(payload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from, text: 'Pump 3 is leaking', ts: 1_763_000_000 }]));
    expect({ status: first.status, body: first.body }).toEqual({ status: 200, body: { stored: 1, duplicates: 0, unrouted: 0 } });
    const second = await post(payload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from, text: 'Still leaking', ts: 1_763_000_060 }]));
    expect(second.body.stored).toBe(1);

    const contact = await api.deps
      .db('contacts')
      .where({ tenant_id: tenant.tenantId, phone: `+${from}` })
      .first();
    expect(contact.name).toBe('Ana Lopez');
    const conversations = await api.request(`/api/v1/agents/${agentId}/conversations`, { token: tenant.token });
    expect(conversations.body.items).toEqual([
      expect.objectContaining({ agent_id: agentId, contact_id: contact.id, channel: 'whatsapp', status: 'open', started_at: new Date(1_763_000_000_000).toISOString() }),
    ]);
    const conversationId = conversations.body.items[0].id;
    const messages = await api.request(`/api/v1/conversations/${conversationId}/messages`, { token: tenant.token });
    expect(messages.body.items.filter((m: { direction: string }) => m.direction === 'inbound').map((m: { direction: string; body: string }) => [m.direction, m.body])).toEqual([
      ['inbound', 'Pump 3 is leaking'],
      ['inbound', 'Still leaking'],
    ]);

    // Written in one transaction, so they share created_at: compared by type, not by order.
    const events = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId }).whereIn('type', ['conversation.started', 'conversation.message.received']);
    const started = events.filter((e) => e.type === 'conversation.started');
    const received = events.filter((e) => e.type === 'conversation.message.received');
    expect([started.length, received.length]).toEqual([1, 2]);
    expect(started[0].data).toEqual({ conversation_id: conversationId, agent_id: agentId, contact_id: contact.id, channel: 'whatsapp' });
    for (const event of received) expect(Object.keys(event.data).sort()).toEqual(['agent_id', 'channel', 'contact_id', 'conversation_id', 'message_id']);
    expect(JSON.stringify(events)).not.toMatch(/leaking|34611222333|Ana/);
    const audit = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'conversation.message_received' });
    expect(audit).toHaveLength(2);
    expect(audit[0].subject_ref).toBe(contact.id);
  });

  it('stores a redelivered message once', async () => {
    const body = payload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from: '34622000111', text: 'hello' }]);
    expect((await post(body)).body).toEqual({ stored: 1, duplicates: 0, unrouted: 0 });
    const before = (await messagesOf(tenant.tenantId)).length;
    expect((await post(body)).body).toEqual({ stored: 0, duplicates: 1, unrouted: 0 });
    expect(await messagesOf(tenant.tenantId)).toHaveLength(before);
  });

  it('refuses a wrong, missing or foreign signature and an unknown number with 401, storing nothing', async () => {
    const before = (await messagesOf(tenant.tenantId)).length;
    const body = payload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from: '34633000111', text: 'forged' }]);
    expectError(await post(body, 'not-the-app-secret'), 401, 'UNAUTHENTICATED');
    expectError(await post(body, null), 401, 'UNAUTHENTICATED');
    // Signed correctly, then altered in transit.
    const raw = JSON.stringify(body);
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
    const altered = await api.request('/api/v1/whatsapp/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature },
      body: raw.replace('forged', 'Forged'),
    });
    expectError(altered, 401, 'UNAUTHENTICATED');
    expectError(await post(payload(newPhoneNumberId(), [{ id: `wamid.${randomUUID()}`, from: '34633000111', text: 'x' }])), 401, 'UNAUTHENTICATED');
    expectError(await post({ object: 'page', entry: [] }), 422, 'VALIDATION_ERROR');
    expect(await messagesOf(tenant.tenantId)).toHaveLength(before);
  });

  it('routes a number registered by two tenants to the one whose app secret signed the payload', async () => {
    const pnid = newPhoneNumberId();
    const [owner, squatter] = [await createTenant(api), await createTenant(api)];
    const secrets = { owner: `owner-secret-${randomUUID()}`, squatter: `squatter-secret-${randomUUID()}` };
    for (const [t, secret] of [
      [owner, secrets.owner],
      [squatter, secrets.squatter],
    ] as const) {
      const number = await api.request('/api/v1/whatsapp/numbers', {
        method: 'POST',
        token: t.token,
        json: { display_phone_number: '+34600333444', phone_number_id: pnid, access_token: `tok-${randomUUID()}`, app_secret: secret },
      });
      expect(number.status).toBe(201);
      const agent = await api.request('/api/v1/agents', {
        method: 'POST',
        token: t.token,
        json: { name: 'Desk', type: 'whatsapp', system_prompt: 'x', whatsapp_number_id: number.body.id },
      });
      expect(agent.status).toBe(201);
    }
    const id = `wamid.${randomUUID()}`;
    const res = await post(payload(pnid, [{ id, from: '34644000999', text: 'pump 3 is leaking' }]), secrets.owner);
    expect(res.body).toEqual({ stored: 1, duplicates: 0, unrouted: 0 });
    expect((await messagesOf(owner.tenantId)).map((m: { provider_message_id: string }) => m.provider_message_id)).toContain(id);
    expect(await messagesOf(squatter.tenantId)).toEqual([]);
    // A payload signed with a secret nobody registered for this number is refused.
    expectError(await post(payload(pnid, [{ id: `wamid.${randomUUID()}`, from: '34644000999', text: 'x' }]), 'nobody'), 401, 'UNAUTHENTICATED');
  });

  it("keeps a provider's NUL characters as U+FFFD instead of refusing the payload (the provider cannot fix it)", async () => {
    const id = `wamid.${randomUUID()}`;
    const res = await post(payload(phoneNumberId, [{ id, from: '34644000111', text: 'valve\u0000 stuck' }]));
    expect(res.status).toBe(200);
    const row = await api.deps.db('messages').where({ tenant_id: tenant.tenantId, provider_message_id: id }).first();
    expect(row.body).toBe('valve\uFFFD stuck');
  });

  it('redacts bodies for all four categories of SPEC.md when the tenant turned pii.auto_redact on', async () => {
    expect((await api.request('/api/v1/privacy/settings', { method: 'PUT', token: tenant.token, json: { pii: { auto_redact: true } } })).status).toBe(200);
    const id = `wamid.${randomUUID()}`;
    const text =
      'mail me at ana@example.com or call +34 611 222 333; badge for SSN 219-09-9999, CPF 529.982.247-25, ' +
      'DNI 12345678Z and NI AB 12 34 56 C; pay the bearings with 4111 1111 1111 1111, order 4711';
    await post(payload(phoneNumberId, [{ id, from: '34644000111', text }]));
    const row = await api.deps.db('messages').where({ tenant_id: tenant.tenantId, provider_message_id: id }).first();
    const redacted =
      'mail me at [redacted:email] or call [redacted:phone]; badge for SSN [redacted:id_number], CPF [redacted:id_number], ' +
      'DNI [redacted:id_number] and NI [redacted:id_number]; pay the bearings with [redacted:credit_card], order 4711';
    expect(row.body).toBe(redacted);
    const messages = await api.request(`/api/v1/conversations/${row.conversation_id}/messages`, { token: tenant.token });
    expect(messages.body.items.map((m: { body: string }) => m.body)).toContain(redacted);
    expect(JSON.stringify(messages.body)).not.toMatch(/219-09-9999|529\.982|12345678Z|4111 1111/);
    await api.deps.db('tenant_settings').where({ tenant_id: tenant.tenantId }).update({ pii_auto_redact: false });
  });

  it('does not route messages to an inactive number or a number without an active agent', async () => {
    const other = await createTenant(api);
    const pnid = newPhoneNumberId();
    const secret = `other-secret-${randomUUID()}`;
    await api.request('/api/v1/whatsapp/numbers', {
      method: 'POST',
      token: other.token,
      json: { display_phone_number: '+34600999888', phone_number_id: pnid, access_token: `tok-${randomUUID()}`, app_secret: secret },
    });
    const res = await post(payload(pnid, [{ id: `wamid.${randomUUID()}`, from: '34655000111', text: 'anyone?' }]), secret);
    expect(res.body).toEqual({ stored: 0, duplicates: 0, unrouted: 1 });
    expect(await messagesOf(other.tenantId)).toEqual([]);
    // The first tenant's secret does not sign for the second tenant's number.
    expectError(await post(payload(pnid, [{ id: `wamid.${randomUUID()}`, from: '34655000111', text: 'x' }])), 401, 'UNAUTHENTICATED');

    // An inactive number: its agent is in error, nothing is routed to it.
    await api.request(`/api/v1/whatsapp/numbers/${numberId}`, { method: 'PUT', token: tenant.token, json: { status: 'inactive' } });
    const before = (await messagesOf(tenant.tenantId)).length;
    expect((await post(payload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from: '34655000111', text: 'x' }]))).body).toEqual({ stored: 0, duplicates: 0, unrouted: 1 });
    expect(await messagesOf(tenant.tenantId)).toHaveLength(before);
    await api.request(`/api/v1/whatsapp/numbers/${numberId}`, { method: 'PUT', token: tenant.token, json: { status: 'active' } });
  });
});

describe('logs', () => {
  // Runs last: the verify token travels in a GET query string and the app secret signs every
  // POST; neither may reach a log line of any request above.
  it('writes neither the app secret nor the verify token to any log line', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = logs.lines();
    expect(lines.filter((l) => l.includes('/api/v1/whatsapp/webhook')).length).toBeGreaterThan(10);
    expect(lines.filter((l) => l.includes(APP_SECRET) || l.includes(VERIFY_TOKEN))).toEqual([]);
  });
});
