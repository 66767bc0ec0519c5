/**
 * Conversations end to end on the test stack: inbound e-mail (raw MIME, signed) and WhatsApp
 * messages are stored, answered by the agent's built-in engine through the worker (from dist/),
 * and the reply goes out through the channel (the SMTP sink, the WhatsApp provider sink); tool
 * calls are logged; machine agents open one corrective task per event; people close
 * conversations; no secret reaches a response or a log line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { FULL_SERVICE_GRANT, signInternalToken } from '../../domain/auth/tokens';
import { createTenant, expectError, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { captureServiceLogs, LogCapture } from '../support/log-capture';
import { authenticatedSender, waitForMail } from '../support/mail';
import { startSmtpTestServer, SmtpTestServer } from '../support/smtp-test-server';
import { waitForWhatsappSend } from '../support/whatsapp-sink';
import { until } from '../support/until';

jest.setTimeout(90_000);

const APP_SECRET = `app-secret-${randomUUID()}`;
const ACCESS_TOKEN = `tok-${randomUUID()}`;
const SMTP_PASSWORD = `smtp-pw-${randomUUID()}`;

let api: TestApi;
let logs: LogCapture;
let tenant: TestTenant;
let other: TestTenant;
let smtpAuth: SmtpTestServer;
let accountId: string;
let inboundSecret: string;
let emailAgentId: string;
/** Bodies of every response except the two that return a freshly generated inbound secret. */
const responses: string[] = [];

async function call(t: TestTenant | null, url: string, method = 'GET', json?: unknown): Promise<TestResponse> {
  const res = await api.request(url, { method, token: t?.token, json });
  responses.push(res.text);
  return res;
}

/** A message as the receiving MTA hands it on: with its report that the sender passed DMARC for the From domain. */
function mime(opts: { from: string; subject: string; text: string; html?: string; messageId: string }): Promise<Buffer> {
  return new MailComposer({ ...opts, headers: authenticatedSender(opts.from), to: 'support@plant.example.com', date: new Date() }).compile().build();
}

async function postEmail(id: string, raw: Buffer, secret: string | null = inboundSecret, contentType = 'message/rfc822'): Promise<TestResponse> {
  const headers: Record<string, string> = { 'Content-Type': contentType };
  if (secret) headers['X-Inbound-Signature'] = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  const res = await api.request(`/api/v1/email/inbound/${id}`, { method: 'POST', headers, body: raw });
  responses.push(res.text);
  return res;
}

const eventually = <T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string) => until(read, ok, what, 30_000, 200);

const smtpSink = () => new URL(process.env.SMTP_URL!);

beforeAll(async () => {
  logs = captureServiceLogs();
  api = await startTestApi({ logLevel: 'trace' });
  [tenant, other, smtpAuth] = await Promise.all([createTenant(api), createTenant(api), startSmtpTestServer('mailer', SMTP_PASSWORD)]);

  const account = await api.request('/api/v1/email/accounts', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Support', email_address: 'support@plant.example.com', smtp_host: smtpSink().hostname, smtp_port: Number(smtpSink().port) },
  });
  expect(account.status).toBe(201);
  expect(account.body).toMatchObject({ inbound_configured: true, inbound_secret: expect.stringMatching(/^whin_/) });
  accountId = account.body.id;
  inboundSecret = account.body.inbound_secret;

  const tool = await call(tenant, '/api/v1/tools', 'POST', { name: 'asset_health', description: 'Health of an asset', kind: 'built_in', builtin: 'get_asset_health' });
  const agent = await call(tenant, '/api/v1/email', 'POST', {
    name: 'Plant helpdesk',
    system_prompt: 'Answer plant questions.',
    email_account_id: accountId,
    tools: [tool.body.id],
  });
  expect(agent.status).toBe(201);
  emailAgentId = agent.body.id;
  const asset = await call(tenant, '/api/v1/assets', 'POST', { name: 'Pump P-101', type: 'pump' });
  await api.deps
    .db('asset_health')
    .insert({ tenant_id: tenant.tenantId, asset_id: asset.body.id, health_score: 64, status: 'fair', factors: JSON.stringify([]), last_updated: new Date() });
});

afterAll(async () => {
  logs.stop();
  await smtpAuth?.close();
  await api?.close();
});

describe('inbound e-mail', () => {
  it('stores a signed MIME message with its contact, answers it by SMTP in the same thread, and logs the tool call', async () => {
    const messageId = `<${randomUUID()}@customer.example>`;
    const raw = await mime({
      from: 'Ana Lopez <Ana.Lopez@Customer.example>',
      subject: 'Pump question',
      text: 'Hello, how is pump P-101 doing today?',
      html: '<p>Hello, how is pump <b>P-101</b> doing today?</p>',
      messageId,
    });
    const res = await postEmail(accountId, raw);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { stored: 1, duplicates: 0, unrouted: 0 } });

    const contact = await api.deps.db('contacts').where({ tenant_id: tenant.tenantId }).whereRaw('lower(email) = ?', ['ana.lopez@customer.example']).first('id', 'name');
    expect(contact.name).toBe('Ana Lopez');
    const conversations = await call(tenant, `/api/v1/conversations?contact_id=${contact.id}`);
    expect(conversations.body.items).toEqual([expect.objectContaining({ agent_id: emailAgentId, channel: 'email', status: 'open' })]);
    const conversationId = conversations.body.items[0].id;

    const mail = await waitForMail((m) => m.to.includes('ana.lopez@customer.example'));
    expect(mail.from).toBe('support@plant.example.com');
    expect(mail.subject).toBe('Re: Pump question');
    expect(mail.raw).toMatch(new RegExp(`^In-Reply-To: ${messageId}`, 'm'));
    expect(mail.raw).toMatch(new RegExp(`^References: ${messageId}`, 'm'));
    expect(mail.text).toContain('Pump P-101 is fair with a health score of 64/100 and no open alerts.');

    const messages = await eventually(
      () => call(tenant, `/api/v1/conversations/${conversationId}/messages`),
      (r) => r.body.items.some((m: any) => m.delivery_status === 'sent'),
      'the reply to be marked sent',
    );
    expect(messages.body.items.map((m: any) => [m.direction, m.body, m.delivery_status])).toEqual([
      ['inbound', 'Hello, how is pump P-101 doing today?', null],
      ['outbound', 'Pump P-101 is fair with a health score of 64/100 and no open alerts.', 'sent'],
    ]);
    const toolCalls = await call(tenant, `/api/v1/conversations/${conversationId}/tool-calls`);
    expect(toolCalls.body.total).toBe(1);
    expect(toolCalls.body.items[0]).toMatchObject({
      conversation_id: conversationId,
      message_id: messages.body.items[0].id,
      name: 'asset_health',
      arguments: { asset: 'P-101' },
      status: 'succeeded',
      result: { asset_name: 'Pump P-101', health_score: 64, status: 'fair', open_alerts: 0 },
    });

    // Redelivered: stored once. A second message from the same address (other case) is the same contact.
    expect((await postEmail(accountId, raw)).body).toEqual({ stored: 0, duplicates: 1, unrouted: 0 });
    const again = await mime({ from: 'ana.lopez@customer.example', subject: 'Re: Pump question', text: 'Thanks!', messageId: `<${randomUUID()}@customer.example>` });
    expect((await postEmail(accountId, again)).body.stored).toBe(1);
    expect(await api.deps.db('contacts').where({ tenant_id: tenant.tenantId }).whereNotNull('email')).toHaveLength(1);
    const inbound = await api.deps.db('messages').where({ tenant_id: tenant.tenantId, conversation_id: conversationId, direction: 'inbound' });
    expect(inbound).toHaveLength(2);
  });

  it('refuses a wrong or missing signature, an unknown account and another content type, storing nothing', async () => {
    // Inbound only: replies to earlier messages may still be arriving.
    const inboundCount = () => api.deps.db('messages').where({ tenant_id: tenant.tenantId, direction: 'inbound' }).count({ n: '*' });
    const before = await inboundCount();
    const raw = await mime({ from: 'mallory@evil.example', subject: 'x', text: 'forged', messageId: `<${randomUUID()}@evil.example>` });
    expectError(await postEmail(accountId, raw, 'whin_not-the-secret'), 401, 'UNAUTHENTICATED');
    expectError(await postEmail(accountId, raw, null), 401, 'UNAUTHENTICATED');
    expectError(await postEmail(randomUUID(), raw), 401, 'UNAUTHENTICATED');
    // A malformed id names no account: the router's one answer for malformed path ids.
    expectError(await postEmail('not-a-uuid', raw), 404, 'NOT_FOUND');
    expectError(await postEmail(accountId, raw, inboundSecret, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // Signed, then altered in transit.
    const signature = `sha256=${createHmac('sha256', inboundSecret).update(raw).digest('hex')}`;
    const altered = Buffer.from(raw.toString('utf8').replace('forged', 'Forged'));
    const res = await api.request(`/api/v1/email/inbound/${accountId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'message/rfc822', 'X-Inbound-Signature': signature },
      body: altered,
    });
    expectError(res, 401, 'UNAUTHENTICATED');
    expect(await inboundCount()).toEqual(before);
    expect(await api.deps.db('contacts').where({ tenant_id: tenant.tenantId, email: 'mallory@evil.example' })).toEqual([]);
  });

  it('rotates the inbound secret: the old one stops working; another tenant cannot rotate it', async () => {
    expectError(await call(other, `/api/v1/email/accounts/${accountId}/inbound-secret`, 'POST'), 404, 'NOT_FOUND');
    const rotated = await api.request(`/api/v1/email/accounts/${accountId}/inbound-secret`, { method: 'POST', token: tenant.token });
    expect(rotated.body.inbound_secret).toMatch(/^whin_/);
    const raw = await mime({ from: 'bo@customer.example', subject: 'Hi', text: 'hello', messageId: `<${randomUUID()}@customer.example>` });
    expectError(await postEmail(accountId, raw, inboundSecret), 401, 'UNAUTHENTICATED');
    const previous = inboundSecret;
    inboundSecret = rotated.body.inbound_secret;
    expect((await postEmail(accountId, raw)).body.stored).toBe(1);
    expect(inboundSecret).not.toBe(previous);
    const account = await call(tenant, `/api/v1/email/accounts/${accountId}`);
    expect(account.body.inbound_configured).toBe(true);
    expect(account.body).not.toHaveProperty('inbound_secret');
  });
});

describe('WhatsApp', () => {
  it("answers an inbound message through the provider with the number's token and the Cloud API body", async () => {
    const pnid = String(100000000000 + Math.floor(Math.random() * 9e11));
    const number = await call(tenant, '/api/v1/whatsapp/numbers', 'POST', {
      display_phone_number: '+34600111222',
      phone_number_id: pnid,
      access_token: ACCESS_TOKEN,
      app_secret: APP_SECRET,
    });
    expect(number.status).toBe(201);
    await call(tenant, '/api/v1/whatsapp/agents', 'POST', { name: 'WhatsApp desk', system_prompt: 'Help.', whatsapp_number_id: number.body.id });
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '34600111222', phone_number_id: pnid },
                contacts: [{ profile: { name: 'Luis' }, wa_id: '34677000111' }],
                messages: [{ from: '34677000111', id: `wamid.${randomUUID()}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Hello there' } }],
              },
            },
          ],
        },
      ],
    });
    const res = await api.request('/api/v1/whatsapp/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(payload).digest('hex')}` },
      body: payload,
    });
    responses.push(res.text);
    expect(res.body).toEqual({ stored: 1, duplicates: 0, unrouted: 0 });
    const send = await waitForWhatsappSend((s) => s.phone_number_id === pnid);
    expect(send).toMatchObject({
      status: 200,
      authorization: `Bearer ${ACCESS_TOKEN}`,
      body: {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '34677000111',
        type: 'text',
        text: { preview_url: false, body: "Hello! I'm WhatsApp desk. A colleague will follow up on your message." },
      },
    });
  });
});

describe('machine agents with create_maintenance_task', () => {
  it('open one corrective task per event, recorded on the run, even when the event is delivered again', async () => {
    const internal = signInternalToken('test-suite', api.deps.config.secrets.internalJwt, FULL_SERVICE_GRANT);
    const tool = await call(tenant, '/api/v1/tools', 'POST', { name: 'work_orders', description: 'Open work orders', kind: 'built_in', builtin: 'create_maintenance_task' });
    const agent = await call(tenant, '/api/v1/agents', 'POST', {
      name: 'Leak watcher',
      type: 'machine',
      system_prompt: 'Open a work order on leaks.',
      tools: [tool.body.id],
      trigger_config: { event_types: ['leak.detected'], cooldown_minutes: 60 },
    });
    const asset = await call(tenant, '/api/v1/assets', 'POST', { name: 'Tank T-7', type: 'tank' });
    const eventId = randomUUID();
    const post = () =>
      api.request('/internal/events', {
        method: 'POST',
        token: internal,
        json: { tenant_id: tenant.tenantId, type: 'leak.detected', data: { asset_id: asset.body.id }, event_id: eventId },
      });
    expect((await post()).status).toBe(202);
    expect((await post()).status).toBe(202);
    const runs = await eventually(
      () => call(tenant, `/api/v1/agents/${agent.body.id}/runs`),
      (r) => r.body.total === 1 && r.body.items[0].task_id,
      'the run',
    );
    const run = runs.body.items[0];
    const tasks = await api.deps
      .db('maintenance_tasks')
      .where({ tenant_id: tenant.tenantId, kind: 'corrective' })
      .whereRaw('? = any(asset_ids)', [asset.body.id])
      .select('id', 'plan_id', 'task_code', 'priority', 'status');
    expect(tasks).toEqual([{ id: run.task_id, plan_id: null, task_code: expect.stringMatching(/^CM-\d+$/), priority: 'high', status: 'open' }]);
    expect(run.reply_text).toContain(`Opened corrective task ${tasks[0].task_code}.`);
    const created = await api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type: 'task.created' }).whereRaw(`data->>'task_id' = ?`, [run.task_id]);
    expect(created).toHaveLength(1);
    expect(created[0].data).toMatchObject({ kind: 'corrective', plan_id: null, asset_id: asset.body.id, executed_by: 'machine_agent', agent_id: agent.body.id });
  });
});

describe('closing and reading conversations', () => {
  it('closes a conversation for a person once, emits conversation.closed, and keeps other tenants out', async () => {
    const raw = await mime({ from: 'carla@customer.example', subject: 'Valve', text: 'hi', messageId: `<${randomUUID()}@customer.example>` });
    await postEmail(accountId, raw);
    const contact = await api.deps.db('contacts').where({ tenant_id: tenant.tenantId, email: 'carla@customer.example' }).first('id');
    const [conversation] = (await call(tenant, `/api/v1/conversations?contact_id=${contact.id}`)).body.items;

    expectError(await call(other, `/api/v1/conversations/${conversation.id}/close`, 'POST'), 404, 'NOT_FOUND');
    expectError(await call(other, `/api/v1/conversations/${conversation.id}/tool-calls`), 404, 'NOT_FOUND');
    expectError(await call(tenant, `/api/v1/conversations/not-a-uuid/tool-calls`), 404, 'NOT_FOUND');
    const closed = await call(tenant, `/api/v1/conversations/${conversation.id}/close`, 'POST');
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ id: conversation.id, status: 'closed', closed_at: expect.any(String) });
    expectError(await call(tenant, `/api/v1/conversations/${conversation.id}/close`, 'POST'), 409, 'INVALID_STATE');
    const events = await api.deps
      .db('outbox_events')
      .where({ tenant_id: tenant.tenantId, type: 'conversation.closed' })
      .whereRaw(`data->>'conversation_id' = ?`, [conversation.id]);
    expect(events.map((e) => e.data)).toEqual([{ conversation_id: conversation.id, agent_id: emailAgentId, contact_id: contact.id, channel: 'email', reason: 'closed_by_person' }]);
    const audit = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, action: 'conversation.closed', resource_id: conversation.id });
    expect(audit).toHaveLength(1);
  });
});

describe('secrets', () => {
  // Last: every request above may have carried or produced a secret.
  it('never returns or logs the access token, app secret, SMTP password or inbound secret', async () => {
    // An account with a password, verified against an SMTP server with AUTH.
    const withPassword = await call(tenant, '/api/v1/email/accounts', 'POST', {
      name: 'Auth',
      email_address: 'ops@plant.example.com',
      smtp_host: smtpAuth.host,
      smtp_port: smtpAuth.port,
      username: 'mailer',
      password: SMTP_PASSWORD,
    });
    expect(withPassword.status).toBe(201);
    await new Promise((r) => setTimeout(r, 100));
    const workerLog = fs.readFileSync(path.resolve(__dirname, '../../.run/worker.log'), 'utf8');
    for (const secret of [ACCESS_TOKEN, APP_SECRET, SMTP_PASSWORD, inboundSecret]) {
      // The inbound secret is in the two answers that generated it (account creation, rotation), and only there.
      const bodies = secret === inboundSecret ? responses.filter((r) => !r.includes('"inbound_secret"')) : responses;
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(logs.lines().filter((l) => l.includes(secret))).toEqual([]);
      expect(workerLog.includes(secret)).toBe(false);
    }
    expect(logs.lines().length).toBeGreaterThan(10);
  });
});
