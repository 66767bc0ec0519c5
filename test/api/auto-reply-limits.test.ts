/**
 * The e-mail agent starts no mail loops, over real HTTP with the worker from dist/ and the SMTP
 * sink: automatic mail and mail failing sender authentication is stored but not answered (the
 * reason on the message), and a contact gets at most AUTO_REPLIES_PER_CONTACT_PER_HOUR replies.
 */
import { createHmac, randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { AUTO_REPLIES_PER_CONTACT_PER_HOUR } from '../../domain/agents/auto-reply-policy';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { authenticatedSender, caughtMail, sinkEmailAccount } from '../support/mail';
import { until } from '../support/until';

jest.setTimeout(120_000);

let api: TestApi;
let tenant: TestTenant;
let accountId: string;
let inboundSecret: string;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  const account = await sinkEmailAccount(api, tenant);
  accountId = account.id;
  inboundSecret = account.inbound_secret;
  const agent = await api.request('/api/v1/email', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Plant helpdesk', system_prompt: 'Answer plant questions.', email_account_id: accountId },
  });
  expect(agent.status).toBe(201);
});
afterAll(() => api?.close());

/** What the receiving MTA reports for a sender of customer.example it authenticated (DMARC pass, aligned SPF and DKIM). */
const AUTHENTICATED = authenticatedSender('someone@customer.example');

async function postEmail(from: string, text: string, headers: Record<string, string> | { key: string; value: string }[] = AUTHENTICATED): Promise<void> {
  const raw = await new MailComposer({ from, to: 'support@plant.example.com', subject: 'Hello', text, headers, messageId: `<${randomUUID()}@customer.example>`, date: new Date() })
    .compile()
    .build();
  const res = await api.request(`/api/v1/email/inbound/${accountId}`, {
    method: 'POST',
    headers: { 'Content-Type': 'message/rfc822', 'X-Inbound-Signature': `sha256=${createHmac('sha256', inboundSecret).update(raw).digest('hex')}` },
    body: raw,
  });
  expect(res.body).toEqual({ stored: 1, duplicates: 0, unrouted: 0 });
}

interface ApiMessage {
  direction: string;
  body: string;
  delivery_status: string | null;
  no_reply_reason: string | null;
}

/** The contact's one conversation's messages once `ok` holds. */
async function messagesOf(address: string, ok: (messages: ApiMessage[]) => boolean): Promise<ApiMessage[]> {
  const read = async () => {
    const contact = await api.deps.db('contacts').where({ tenant_id: tenant.tenantId, email: address }).first('id');
    if (!contact) return [];
    const conversations = await api.request(`/api/v1/conversations?contact_id=${contact.id}`, { token: tenant.token });
    if (conversations.body.total !== 1) return [];
    const messages = await api.request(`/api/v1/conversations/${conversations.body.items[0].id}/messages?limit=100`, { token: tenant.token });
    return messages.body.items as ApiMessage[];
  };
  return until(read, ok, `the messages of ${address}`, 60_000, 250);
}

describe('mail the agent does not answer', () => {
  it('stores automatic and unauthenticated mail with the reason and answers only the person authenticated for the From domain', async () => {
    const address = `ana-${randomUUID().slice(0, 8)}@customer.example`;
    await postEmail(address, 'I am out of office until Monday.', { ...AUTHENTICATED, 'Auto-Submitted': 'auto-replied' });
    await postEmail(address, 'Newsletter', { ...AUTHENTICATED, 'List-Id': '<news.customer.example>', Precedence: 'bulk' });
    await postEmail(address, 'Forged sender', { 'Authentication-Results': 'mx.plant.example; spf=fail smtp.mailfrom=customer.example; dkim=none' });
    // Not authenticated for the From domain: no result, a softfail, a pass for another domain, a pass written further down.
    await postEmail(address, 'No results', {});
    await postEmail(address, 'Soft', { 'Authentication-Results': 'mx.plant.example; spf=softfail smtp.mailfrom=customer.example; dkim=none; dmarc=none' });
    await postEmail(address, 'Other domain', { 'Authentication-Results': 'mx.plant.example; spf=pass smtp.mailfrom=evil.example; dkim=pass header.d=evil.example' });
    await postEmail(address, 'Planted pass', [
      // The receiving MTA's, on top; the sender's own, below it.
      { key: 'Authentication-Results', value: 'mx.plant.example; spf=none; dkim=none' },
      { key: 'Authentication-Results', value: 'mx.plant.example; dmarc=pass header.from=customer.example' },
    ]);
    await postEmail(address, 'How is pump P-101 doing?');

    // Answered in order: once the person's mail has its sent reply, the three before it were decided.
    const messages = await messagesOf(address, (items) => items.some((m) => m.direction === 'outbound' && m.delivery_status === 'sent'));
    expect(messages.map((m) => [m.direction, m.body, m.no_reply_reason])).toEqual([
      ['inbound', 'I am out of office until Monday.', 'auto_submitted'],
      ['inbound', 'Newsletter', 'bulk_precedence'],
      ['inbound', 'Forged sender', 'spf_fail'],
      ['inbound', 'No results', 'sender_unauthenticated'],
      ['inbound', 'Soft', 'sender_unauthenticated'],
      ['inbound', 'Other domain', 'sender_unauthenticated'],
      ['inbound', 'Planted pass', 'sender_unauthenticated'],
      ['inbound', 'How is pump P-101 doing?', null],
      ['outbound', expect.any(String), null],
    ]);
    expect(caughtMail((m) => m.to.includes(address))).toHaveLength(1);
  });

  it(`answers a contact at most ${AUTO_REPLIES_PER_CONTACT_PER_HOUR} times an hour`, async () => {
    const address = `loop-${randomUUID().slice(0, 8)}@customer.example`;
    const total = AUTO_REPLIES_PER_CONTACT_PER_HOUR + 2;
    for (let i = 1; i <= total; i += 1) await postEmail(address, `Message ${i}`);

    const messages = await messagesOf(address, (items) => items.filter((m) => m.direction === 'inbound' && m.no_reply_reason === 'contact_reply_limit').length === 2);
    const inbound = messages.filter((m) => m.direction === 'inbound');
    expect(inbound.map((m) => m.no_reply_reason)).toEqual([...Array(AUTO_REPLIES_PER_CONTACT_PER_HOUR).fill(null), 'contact_reply_limit', 'contact_reply_limit']);
    const sent = await messagesOf(address, (items) => items.filter((m) => m.direction === 'outbound' && m.delivery_status === 'sent').length === AUTO_REPLIES_PER_CONTACT_PER_HOUR);
    expect(sent.filter((m) => m.direction === 'outbound')).toHaveLength(AUTO_REPLIES_PER_CONTACT_PER_HOUR);
    expect(caughtMail((m) => m.to.includes(address))).toHaveLength(AUTO_REPLIES_PER_CONTACT_PER_HOUR);
  });
});
