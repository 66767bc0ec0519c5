/**
 * The tenant shares of the worker's outbound pools beyond webhooks (infra/tenant-limiter.ts), as
 * the activities use them: with a tenant's share taken, an agent's HTTP tool call and a
 * conversation reply through the tenant's own SMTP server are refused before anything is sent or
 * logged (the activity is retried later, TenantBusy), and go through once, once the share is free.
 */
import { randomUUID } from 'node:crypto';
import { runToolCall } from '../../activities/conversation-tools';
import { createConversationActivities } from '../../activities/conversations';
import { contactByEmail, openConversation, storeMessageBody } from '../../db/queries/conversations';
import { tenantScope } from '../../db/tenant-scope';
import { TenantCapacityError, TenantLimiter, tenantLimiter } from '../../infra/tenant-limiter';
import { createTenant, startTestApi, TestApi } from '../support/api';
import { sinkEmailAccount, waitForMail } from '../support/mail';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

it("refuses a tool call beyond its tenant's share before sending or logging it", async () => {
  const tenant = await createTenant(api);
  const shares = new TenantLimiter('tool_calls', { maxInFlight: 1, maxWaiting: 0, maxWaitMs: 0 });
  let release!: () => void;
  const held = shares.run(tenant.tenantId, () => new Promise<void>((resolve) => (release = resolve)));
  const ctx = { tenantId: tenant.tenantId, conversationId: randomUUID(), messageId: randomUUID(), agentId: randomUUID(), contactId: randomUUID(), now: new Date() };
  const call = { tool: { id: randomUUID(), name: 'erp_lookup', kind: 'http' as const, url: 'https://erp.example.invalid/lookup', parameters: {} }, arguments: { asset: 'P-101' } };

  await expect(runToolCall(api.deps.db, ctx, call, shares)).rejects.toBeInstanceOf(TenantCapacityError);
  expect(await api.deps.db('tool_calls').where({ tenant_id: tenant.tenantId, message_id: ctx.messageId })).toHaveLength(0);
  expect(shares.refused).toBe(1);
  release();
  await held;
});

it("refuses a reply beyond its tenant's share of SMTP sends without sending it, and sends it once the share is free", async () => {
  const tenant = await createTenant(api);
  const account = await sinkEmailAccount(api, tenant);
  const agent = await api.request('/api/v1/email', {
    method: 'POST',
    token: tenant.token,
    json: { name: 'Helpdesk', system_prompt: 'Answer.', email_account_id: account.id },
  });
  expect(agent.status).toBe(201);

  const scope = tenantScope(api.deps.db, tenant.tenantId);
  const recipient = `ana-${randomUUID().slice(0, 8)}@customer.example`;
  const contact = await contactByEmail(scope, recipient, 'Ana');
  const { conversation } = await api.deps.db.transaction((tx) =>
    openConversation(tenantScope(tx, tenant.tenantId), { agentId: agent.body.id, contactId: contact.id, channel: 'email', startedAt: new Date() }),
  );
  const message = (await storeMessageBody(scope, { direction: 'outbound', conversationId: conversation.id, body: 'Pump P-101 is fine.' }))!;

  const activities = createConversationActivities({
    db: api.deps.db,
    dataEncryptionKey: api.deps.config.secrets.dataEncryptionKey,
    whatsappApiBaseUrl: 'http://127.0.0.1:9',
    allowPrivateDestinations: true,
    llm: null,
    smtpSendsPerTenant: 1,
  });
  // The process's limiter of SMTP sends (the activities' own): this tenant's one slot is taken.
  const shares = tenantLimiter('smtp_sends', { maxInFlight: 1, maxWaiting: 1, maxWaitMs: 0 });
  let release!: () => void;
  const held = shares.run(tenant.tenantId, () => new Promise<void>((resolve) => (release = resolve)));

  await expect(activities.deliverMessage({ tenantId: tenant.tenantId, messageId: message.id })).rejects.toBeInstanceOf(TenantCapacityError);
  expect(await scope.table('messages').where({ id: message.id }).first('delivery_status')).toEqual({ delivery_status: 'pending' });

  release();
  await held;
  expect(await activities.deliverMessage({ tenantId: tenant.tenantId, messageId: message.id })).toBe('sent');
  const mail = await waitForMail((m) => m.to.includes(recipient));
  expect(mail.text).toContain('Pump P-101 is fine.');
});
