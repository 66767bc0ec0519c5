/**
 * Hostile text through the real entry points, against an API process from dist/ and the stack's
 * worker (docs/SECURITY.md, Text matching): a 7 MiB inbound mail dense with e-mails, phones and
 * cards for a tenant with `pii.auto_redact` on, and the regex probes (a long `a-a-a...` for the
 * reply engine, a CPF label followed by 40 000 spaces, 60 000 newlines between words). Each is
 * stored (redacted) and answered, while both processes answer /livez within 2 s and another
 * tenant's requests within 2 s.
 */
import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { startServiceProcess, type ServiceProcess } from '../../scripts/service-process';
import { createTenant, send, startTestApi, TestApi, TestTenant } from '../support/api';
import { densePiiMail, repeated } from '../support/hostile-corpus/text';
import { expectContained, stackWorker, underHostileLoad } from '../support/hostile-probe';
import { authenticatedSender, sinkEmailAccount } from '../support/mail';
import { until } from '../support/until';

jest.setTimeout(300_000);

const MIB = 1024 * 1024;
const ROOT = path.resolve(__dirname, '..', '..');

let admin: TestApi;
let owner: TestTenant;
let other: TestTenant;
let apiProcess: ServiceProcess;
let account: { id: string; inbound_secret: string };

beforeAll(async () => {
  admin = await startTestApi();
  [owner, other] = await Promise.all([createTenant(admin), createTenant(admin)]);
  await admin.deps.db('tenant_settings').insert({ tenant_id: owner.tenantId, pii_auto_redact: true });
  account = await sinkEmailAccount(admin, owner);
  const agent = await admin.request('/api/v1/email', {
    method: 'POST',
    token: owner.token,
    json: { name: 'Plant helpdesk', system_prompt: 'Answer plant questions.', email_account_id: account.id },
  });
  expect(agent.status).toBe(201);
  apiProcess = await startServiceProcess('api', {}, path.join(ROOT, '.run', 'hostile-text-api.log'));
});

afterAll(async () => {
  await apiProcess?.stop();
  await admin?.close();
});

interface SignedMail {
  raw: Buffer;
  signature: string;
  messageId: string;
}

/**
 * A mail composed and signed before the attack starts: composing 7 MiB runs on this process's
 * event loop, which also times the probes, and would be counted against the service.
 */
async function signedMail(text: string): Promise<SignedMail> {
  const messageId = `<${randomUUID()}@outside.example>`;
  const from = 'Outsider <outsider@outside.example>';
  const raw = await new MailComposer({ from, to: 'support@plant.example.com', subject: 'Hello', text, messageId, headers: authenticatedSender(from) }).compile().build();
  return { raw, signature: `sha256=${createHmac('sha256', account.inbound_secret).update(raw).digest('hex')}`, messageId };
}

async function postMail(mail: SignedMail): Promise<{ status: number; body: unknown; messageId: string }> {
  const res = await fetch(`${apiProcess.url}/api/v1/email/inbound/${account.id}`, {
    method: 'POST',
    headers: { 'Content-Type': 'message/rfc822', 'X-Inbound-Signature': mail.signature },
    body: mail.raw,
  });
  return { status: res.status, body: await res.json(), messageId: mail.messageId };
}

const watched = () => [{ name: 'api', pid: apiProcess.pid, livezUrl: `${apiProcess.url}/livez` }, stackWorker()];
const otherTenant = async () => (await send(apiProcess.url, '/api/v1/assets?limit=5', { token: other.token })).status;

/** The stored inbound message of a mail, and the agent's stored reply to it once there is one. */
async function storedWithReply(messageId: string): Promise<{ inbound: string; reply: string }> {
  const db = admin.deps.db;
  const inbound = await db('messages').where({ tenant_id: owner.tenantId, provider_message_id: messageId }).first('id', 'body');
  const reply = await until(
    () =>
      db('messages')
        .where({ tenant_id: owner.tenantId, idempotency_key: `reply:${inbound.id}` })
        .first('body'),
    (row) => row !== undefined,
    'the reply to the hostile mail',
    120_000,
    250,
  );
  return { inbound: inbound.body, reply: reply.body };
}

it('stores a 7 MiB mail dense with e-mails, phones and cards redacted, while both processes and another tenant are answered within 2 s', async () => {
  const text = densePiiMail(7 * MIB);
  const lines = text.split('\n').filter((line) => line.includes('@')).length;
  const mail = await signedMail(text);
  const report = await underHostileLoad({ watched: watched(), otherTenant }, () => postMail(mail));
  expect({ status: report.result.status, body: report.result.body }).toEqual({ status: 200, body: { stored: 1, duplicates: 0, unrouted: 0 } });
  expectContained(report);

  const { inbound } = await storedWithReply(report.result.messageId);
  expect(inbound).not.toMatch(/@example\d\d\.com/);
  expect(inbound.split('[redacted:email]').length - 1).toBe(lines);
  expect(inbound.split('[redacted:credit_card]').length - 1).toBeGreaterThanOrEqual(lines - 1);
  expect(inbound.split('[redacted:phone]').length - 1).toBeGreaterThanOrEqual(lines - 1);
});

it.each([
  ['the reply engine: a-a-a... of 80 000 characters', `pump ${repeated('a-', 80_000)} is broken`],
  ['a CPF label then 40 000 spaces', `CPF${repeated(' ', 40_000)}x 123.456.789-09`],
  ['60 000 newlines between words', `CPF\n${repeated('\n', 60_000)}check\n${repeated(' \n', 20_000)}pump`],
])('%s: stored and answered, both processes and another tenant within 2 s', async (_probe, text) => {
  const mail = await signedMail(text);
  const report = await underHostileLoad({ watched: watched(), otherTenant }, async () => {
    const posted = await postMail(mail);
    return { posted, stored: await storedWithReply(posted.messageId) };
  });
  expect({ status: report.result.posted.status, body: report.result.posted.body }).toEqual({ status: 200, body: { stored: 1, duplicates: 0, unrouted: 0 } });
  expect(report.result.stored.reply.length).toBeGreaterThan(0);
  expectContained(report);
});
