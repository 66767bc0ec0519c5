/**
 * Conversation workflows on the time-skipping server, with their real activities against a real
 * (migrated) PostgreSQL and a loopback WhatsApp provider (test/support/whatsapp-sink.ts), started
 * by the inbound paths' own signalling code (orchestration/conversations): a reply whose send
 * fails twice is retried and sent once; a rejected access token fails the message and puts the
 * agent in error; an idle conversation closes after 24 hours and sends the CSAT invitation; a
 * stored password or token whose record was moved behind the API's back is not sent.
 */
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createConversationActivities } from '../../activities/conversations';
import { provisionTenant } from '../../db/tenants';
import { secretContexts } from '../../domain/agents/channel-secrets';
import { boundColumns, CREDENTIAL_BINDINGS } from '../../domain/credentials/destination-binding';
import { encryptSecret } from '../../domain/credentials/encryption';
import { TASK_QUEUES } from '../../infra/task-queues';
import { workflowIds } from '../../infra/workflow-ids';
import { signalInboundMessage } from '../../orchestration/conversations';
import { recordHistory } from '../support/record-history';
import { createTimeSkippingEnv, registerSearchAttributes } from '../support/temporal-env';
import { expectNoPersonalData } from '../support/history-text';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';
import { startSmtpTestServer, SmtpTestServer } from '../support/smtp-test-server';
import { startWhatsappSink, WhatsappSink } from '../support/whatsapp-sink';
import { until } from '../support/until';

jest.setTimeout(240_000);

const KEY = Buffer.alloc(32, 7);
let pg: TestPostgres;
let env: TestWorkflowEnvironment;
let sink: WhatsappSink;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  [pg, env, sink] = await Promise.all([startTestPostgres(), createTimeSkippingEnv(), startWhatsappSink()]);
  await registerSearchAttributes(env);
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUES.main,
    workflowsPath: require.resolve('../../workflows'),
    activities: createConversationActivities({ db: pg.db, dataEncryptionKey: KEY, whatsappApiBaseUrl: sink.url, allowPrivateDestinations: true, llm: null }),
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
  await sink?.close();
  await pg?.stop();
});

interface Fixture {
  tenantId: string;
  agentId: string;
  phoneNumberId: string;
  conversationId: string;
  contactId: string;
}

async function newTenant(): Promise<string> {
  const suffix = randomUUID().slice(0, 8);
  const tenant = await provisionTenant(pg.db, { name: `Plant ${suffix}`, plan: 'enterprise', adminEmail: `admin-${suffix}@example.com`, adminPassword: `pw-${randomUUID()}` });
  return tenant.tenant_id;
}

/** A tenant with a WhatsApp number (this access token), its agent with get_asset_health, a contact and an open conversation. */
async function whatsappConversation(accessToken: string): Promise<Fixture> {
  const tenantId = await newTenant();
  const numberId = randomUUID();
  const phoneNumberId = String(100000000000 + Math.floor(Math.random() * 9e11));
  await pg.db('whatsapp_numbers').insert({
    id: numberId,
    tenant_id: tenantId,
    display_phone_number: '+34600111222',
    phone_number_id: phoneNumberId,
    access_token_encrypted: encryptSecret(accessToken, KEY, secretContexts.whatsappAccessToken(numberId)),
    ...boundColumns(CREDENTIAL_BINDINGS.whatsappAccessToken, { phone_number_id: phoneNumberId }),
  });
  const [tool] = await pg
    .db('tools')
    .insert({
      tenant_id: tenantId,
      name: 'asset_health',
      description: 'Health of an asset',
      kind: 'built_in',
      builtin: 'get_asset_health',
      parameters: JSON.stringify({ type: 'object', properties: {} }),
    })
    .returning('id');
  const [agent] = await pg
    .db('agents')
    .insert({
      tenant_id: tenantId,
      name: 'Plant helpdesk',
      type: 'whatsapp',
      system_prompt: 'Help.',
      model: 'built-in',
      temperature: 0.2,
      whatsapp_number_id: numberId,
      tools: [tool.id],
    })
    .returning('id');
  const [asset] = await pg.db('assets').insert({ tenant_id: tenantId, name: 'Pump P-101', type: 'pump' }).returning('id');
  await pg.db('asset_health').insert({ tenant_id: tenantId, asset_id: asset.id, health_score: 72, status: 'fair', factors: JSON.stringify([]), last_updated: new Date() });
  const [contact] = await pg.db('contacts').insert({ tenant_id: tenantId, phone: '+34611222333', name: 'Ana' }).returning('id');
  const [conversation] = await pg.db('conversations').insert({ tenant_id: tenantId, agent_id: agent.id, contact_id: contact.id, channel: 'whatsapp' }).returning('id');
  return { tenantId, agentId: agent.id, phoneNumberId, conversationId: conversation.id, contactId: contact.id };
}

async function inbound(f: Fixture, body: string): Promise<string> {
  const [row] = await pg
    .db('messages')
    .insert({ tenant_id: f.tenantId, conversation_id: f.conversationId, direction: 'inbound', body, provider_message_id: `wamid.${randomUUID()}` })
    .returning('id');
  await signalInboundMessage(env.client, { tenantId: f.tenantId, conversationId: f.conversationId, messageId: row.id });
  return row.id;
}

/** Polls while letting the time-skipping server advance (activity retry backoffs are server timers). */
/** Polls while the test server's clock moves on, 5 s a step. */
const untilSkipping = <T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string) => until(read, ok, what, { timeoutMs: 60_000, pause: () => env.sleep('5 seconds') });

const outbound = (f: Fixture) =>
  pg
    .db('messages')
    .where({ tenant_id: f.tenantId, conversation_id: f.conversationId, direction: 'outbound' })
    .orderBy('created_at')
    .select('id', 'body', 'delivery_status', 'failure_reason', 'provider_message_id', 'idempotency_key', 'sent_at');

describe('e-mail delivery with a stored SMTP password', () => {
  const PASSWORD = `smtp-pw-${randomUUID()}`;
  let smtp: SmtpTestServer;
  let collector: SmtpTestServer;
  beforeAll(async () => {
    [smtp, collector] = await Promise.all([startSmtpTestServer('mailer', PASSWORD), startSmtpTestServer('mailer', PASSWORD)]);
  });
  afterAll(async () => {
    await smtp?.close();
    await collector?.close();
  });

  /** A pending reply of an e-mail agent whose account's password is bound to `smtp`; answers its tenant, account and message. */
  async function pendingEmailReply() {
    const tenantId = await newTenant();
    const accountId = randomUUID();
    const destination = { smtp_host: smtp.host, smtp_port: smtp.port, smtp_secure: false };
    await pg.db('email_accounts').insert({
      id: accountId,
      tenant_id: tenantId,
      name: 'Support',
      email_address: 'support@plant.example.com',
      ...destination,
      username: 'mailer',
      password_encrypted: encryptSecret(PASSWORD, KEY, secretContexts.emailPassword(accountId)),
      ...boundColumns(CREDENTIAL_BINDINGS.emailPassword, destination),
    });
    const [agent] = await pg
      .db('agents')
      .insert({ tenant_id: tenantId, name: 'Mail desk', type: 'email', system_prompt: 'Help.', model: 'built-in', temperature: 0.2, email_account_id: accountId })
      .returning('id');
    const [contact] = await pg.db('contacts').insert({ tenant_id: tenantId, email: 'ana@customer.example.com', name: 'Ana' }).returning('id');
    const [conversation] = await pg.db('conversations').insert({ tenant_id: tenantId, agent_id: agent.id, contact_id: contact.id, channel: 'email' }).returning('id');
    const [message] = await pg
      .db('messages')
      .insert({ tenant_id: tenantId, conversation_id: conversation.id, direction: 'outbound', body: 'Hello', delivery_status: 'pending', idempotency_key: `reply:${randomUUID()}` })
      .returning('id');
    return { tenantId, accountId, messageId: message.id as string };
  }

  const activities = () => createConversationActivities({ db: pg.db, dataEncryptionKey: KEY, whatsappApiBaseUrl: sink.url, allowPrivateDestinations: true, llm: null });
  const failureOf = (messageId: string) => pg.db('messages').where({ id: messageId }).first('delivery_status', 'failure_reason');

  it('logs in with the password at the server it was given for', async () => {
    const reply = await pendingEmailReply();
    const attempts = smtp.authAttempts;
    expect(await activities().deliverMessage({ tenantId: reply.tenantId, messageId: reply.messageId })).toBe('sent');
    expect(smtp.authAttempts).toBe(attempts + 1);
  });

  it("never sends the password to a server changed behind the API's back (SQL): the message fails saying why", async () => {
    const reply = await pendingEmailReply();
    await pg.db('email_accounts').where({ id: reply.accountId }).update({ smtp_port: collector.port });
    const attempts = collector.authAttempts;
    expect(await activities().deliverMessage({ tenantId: reply.tenantId, messageId: reply.messageId })).toBe('failed');
    expect(await failureOf(reply.messageId)).toEqual({ delivery_status: 'failed', failure_reason: 'credential_destination_changed' });
    expect(collector.authAttempts).toBe(attempts);
  });
});

/** Sends an inbound message and waits for its reply to fail. */
async function failedReplyTo(f: Fixture, text: string) {
  await inbound(f, text);
  const [reply] = await untilSkipping(
    () => outbound(f),
    (rows) => rows[0]?.delivery_status === 'failed',
    'the reply to fail',
  );
  return reply;
}

describe('conversation workflow', () => {
  it('retries a send through a provider outage, sends it once, then closes when idle and sends the survey', async () => {
    const token = `tok-${randomUUID()}`;
    const f = await whatsappConversation(token);
    await pg.db('csat_surveys').insert({ tenant_id: f.tenantId, name: 'After chat', question: 'How satisfied are you with our help?', scale: 'csat_5', channels: ['whatsapp'] });
    const before = sink.requests().length;
    sink.failNext(2);
    const messageId = await inbound(f, 'How is pump P-101 doing?');

    const [reply] = await untilSkipping(
      () => outbound(f),
      (rows) => rows[0]?.delivery_status === 'sent',
      'the reply to be sent',
    );
    expect(reply).toMatchObject({
      body: 'Pump P-101 is fair with a health score of 72/100 and no open alerts.',
      idempotency_key: `reply:${messageId}`,
      provider_message_id: expect.stringMatching(/^wamid\./),
    });
    const sends = sink.requests().slice(before);
    expect(sends.map((s) => s.status)).toEqual([503, 503, 200]);
    expect(sends[2]).toMatchObject({
      phone_number_id: f.phoneNumberId,
      authorization: `Bearer ${token}`,
      body: { messaging_product: 'whatsapp', recipient_type: 'individual', to: '34611222333', type: 'text', text: { preview_url: false, body: reply.body } },
    });
    expect(sends[2].body.text.body).toBe(reply.body);

    // The tool call is logged once, with its arguments and result.
    const calls = await pg.db('tool_calls').where({ tenant_id: f.tenantId }).select('name', 'arguments', 'status', 'message_id', 'result');
    expect(calls).toEqual([expect.objectContaining({ name: 'asset_health', arguments: { asset: 'P-101' }, status: 'succeeded', message_id: messageId })]);
    expect(calls[0].result).toMatchObject({ asset_name: 'Pump P-101', health_score: 72, status: 'fair', open_alerts: 0 });

    // The history shows the third attempt of the one delivery activity.
    const handle = env.client.workflow.getHandle(workflowIds.conversation(f.tenantId, f.conversationId));
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverMessage');
    expect(scheduled).toHaveLength(1);
    const started = (history.events ?? []).find(
      (e) => e.activityTaskStartedEventAttributes && Number(e.activityTaskStartedEventAttributes.scheduledEventId) === Number(scheduled[0].eventId),
    );
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(3);
    // Ids only in history: no body, phone or token (payloads decoded by the shared scanner).
    await expectNoPersonalData(env.client, handle.workflowId, f.conversationId, ['P-101', token, '34611222333', 'How is pump']);

    // Still open just before the idle timeout.
    await env.sleep('23 hours');
    expect((await pg.db('conversations').where({ id: f.conversationId }).first('status')).status).toBe('open');
    await env.sleep('2 hours');
    expect(await handle.result()).toEqual({ answered: 1, closedBy: 'idle' });
    await recordHistory('conversation-closed-idle', handle);
    const conversation = await pg.db('conversations').where({ id: f.conversationId }).first('status', 'closed_at');
    expect(conversation.status).toBe('closed');
    const closedEvents = await pg.db('outbox_events').where({ tenant_id: f.tenantId, type: 'conversation.closed' }).select('data');
    expect(closedEvents.map((e) => e.data)).toEqual([{ conversation_id: f.conversationId, agent_id: f.agentId, contact_id: f.contactId, channel: 'whatsapp', reason: 'idle' }]);

    const messages = await outbound(f);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ idempotency_key: `survey:${f.conversationId}`, delivery_status: 'sent' });
    expect(messages[1].body).toContain('How satisfied are you with our help?');
    expect(sink.requests().at(-1)?.body.text.body).toBe(messages[1].body);
    expect(await pg.db('csat_invitations').where({ tenant_id: f.tenantId, conversation_id: f.conversationId }).select('status')).toEqual([{ status: 'pending' }]);
  });

  it('gives up on a reply the provider refuses for a whole day: the message fails as provider_unavailable and the conversation goes on', async () => {
    const f = await whatsappConversation(`tok-${randomUUID()}`);
    sink.failNext(1_000_000);
    await inbound(f, 'hello?');
    await untilSkipping(
      () => outbound(f),
      (rows) => rows.length === 1,
      'the reply to be stored',
    );
    await env.sleep('25 hours');
    const [reply] = await untilSkipping(
      () => outbound(f),
      (rows) => rows[0]?.delivery_status === 'failed',
      'the reply to be given up',
    );
    expect(reply).toMatchObject({ delivery_status: 'failed', failure_reason: 'provider_unavailable', sent_at: null });
    sink.failNext(0);
    await inbound(f, 'anyone there?');
    const rows = await untilSkipping(
      () => outbound(f),
      (r) => r[1]?.delivery_status === 'sent',
      'the next reply to be sent',
    );
    expect(rows).toHaveLength(2);
  });

  it('fails the message and puts the agent in error when the provider rejects the access token', async () => {
    const f = await whatsappConversation(`rejected-${randomUUID()}`);
    const before = sink.requests().length;
    const reply = await failedReplyTo(f, 'hello');
    expect(reply).toMatchObject({ delivery_status: 'failed', failure_reason: 'credentials_rejected', sent_at: null });
    // Not retried: one request, answered 401.
    expect(
      sink
        .requests()
        .slice(before)
        .map((s) => s.status),
    ).toEqual([401]);
    expect((await pg.db('agents').where({ id: f.agentId }).first('status')).status).toBe('error');
    const events = await pg.db('outbox_events').where({ tenant_id: f.tenantId, type: 'agent.status_changed' }).select('data');
    expect(events.map((e) => e.data)).toEqual([{ agent_id: f.agentId, status: 'error', reason: 'whatsapp_credentials_rejected' }]);

    // An agent in error does not answer: the next message gets no reply.
    await inbound(f, 'anyone there?');
    await env.sleep('1 minute');
    expect(await outbound(f)).toHaveLength(1);
  });

  it("does not send the access token for a phone number id changed behind the API's back (SQL), and says why", async () => {
    const f = await whatsappConversation(`tok-${randomUUID()}`);
    const moved = String(100000000000 + Math.floor(Math.random() * 9e11));
    await pg.db('whatsapp_numbers').where({ tenant_id: f.tenantId, phone_number_id: f.phoneNumberId }).update({ phone_number_id: moved });
    const before = sink.requests().length;
    const reply = await failedReplyTo(f, 'hello');
    expect(reply).toMatchObject({ delivery_status: 'failed', failure_reason: 'credential_destination_changed', sent_at: null });
    expect(sink.requests().slice(before)).toEqual([]);
  });
});
