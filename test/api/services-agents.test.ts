/**
 * The services of agents and their channels without HTTP (issue 22): each runs on a unit of work,
 * a unit context or a tenant scope built by the caller, here as a worker or a CLI would, against
 * the real database (and a real SMTP server for the account handshake). What a service changes
 * commits with its outbox events and audit row; what it refuses commits nothing.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { insertMachineAgentRun } from '../../db/queries/machine-agent-runs';
import { tenantScope } from '../../db/tenant-scope';
import { runUnit } from '../../db/unit-of-work';
import { createAgent, deleteAgent, listAgents, listMachineAgentRuns, updateAgent } from '../../services/agents';
import { authenticate, endSession, refreshSession, startSession } from '../../services/auth';
import { createEmailAccount, deleteEmailAccount, EmailAccountDeps, rotateInboundSecret, updateEmailAccount } from '../../services/email-accounts';
import { receivingAccount } from '../../services/email-inbound';
import { createTool, deleteTool } from '../../services/tools';
import { createWhatsappNumber, deleteWhatsappNumber, listWhatsappNumbers, updateWhatsappNumber } from '../../services/whatsapp-numbers';
import { authenticatedNumbers, requireKnownVerifyToken } from '../../services/whatsapp-webhook';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { startSmtpTestServer, SmtpTestServer } from '../support/smtp-test-server';
import { DEFAULT_PLAN_MODELS } from '../../domain/tenancy/plans';

const SMTP_PASSWORD = `smtp-pw-${randomUUID()}`;

let api: TestApi;
let smtp: SmtpTestServer;
let tenant: TestTenant;
let key: Buffer;

beforeAll(async () => {
  smtp = await startSmtpTestServer('mailer@plant.example.com', SMTP_PASSWORD);
  api = await startTestApi();
  tenant = await createTenant(api);
  key = api.deps.config.secrets.dataEncryptionKey;
});
afterAll(async () => {
  await api?.close();
  await smtp?.close();
});

const context = () => ({ tenantId: tenant.tenantId, actor: { type: 'system' as const, id: null }, requestId: null });
const scope = () => tenantScope(api.deps.db, tenant.tenantId);
const inUnit = <T>(work: Parameters<typeof runUnit<T>>[2]) => runUnit(api.deps.db, context(), work);
const auditOf = (resourceId: string) => api.deps.db('audit_log').where({ resource_id: resourceId }).orderBy('seq').select('action', 'details');
const eventsOf = (type: string, agentId: string) =>
  api.deps.db('outbox_events').where({ tenant_id: tenant.tenantId, type }).whereRaw(`data->>'agent_id' = ?`, [agentId]).select('data');
const newPhoneNumberId = () => String(100000000000 + Math.floor(Math.random() * 9e11));

it("creates a WhatsApp agent on the tenant's number through the services; the number's status moves it, and a number in use is not deleted", async () => {
  const verifyToken = `verify-${randomUUID()}`;
  const number = await inUnit((unit) =>
    createWhatsappNumber(unit, key, {
      display_phone_number: '+34600111222',
      phone_number_id: newPhoneNumberId(),
      access_token: `token-${randomUUID()}`,
      verify_token: verifyToken,
    }),
  );
  expect(number).toMatchObject({ status: 'active', tenant_id: tenant.tenantId, verify_token_hash: expect.any(String) });
  // The same phone number id twice in one tenant is 409 and records nothing.
  await expect(inUnit((unit) => createWhatsappNumber(unit, key, { phone_number_id: number.phone_number_id, access_token: 'x'.repeat(8) }))).rejects.toMatchObject({
    code: 'CONFLICT',
  });
  expect(await api.deps.db('whatsapp_numbers').where({ phone_number_id: number.phone_number_id })).toHaveLength(1);

  const agent = await inUnit((unit) => createAgent(unit, { type: 'whatsapp', name: 'Front desk', system_prompt: 'Help.', whatsapp_number_id: number.id }, DEFAULT_PLAN_MODELS));
  expect(agent).toMatchObject({ type: 'whatsapp', status: 'active', whatsapp_number_id: number.id, tools: [] });
  expect(await eventsOf('agent.created', agent.id)).toEqual([{ data: { agent_id: agent.id, type: 'whatsapp' } }]);
  expect((await listAgents(scope(), { type: 'whatsapp' }, { skip: 0, limit: 100 })).items.map((a) => a.id)).toContain(agent.id);
  expect((await listAgents(scope(), { type: 'email' }, { skip: 0, limit: 100 })).items.map((a) => a.id)).not.toContain(agent.id);

  // Another type's field is 422; an unknown channel is WHATSAPP_NUMBER_NOT_FOUND; neither records anything.
  await expect(inUnit((unit) => updateAgent(unit, agent.id, { email_account_id: randomUUID() }, DEFAULT_PLAN_MODELS))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  await expect(inUnit((unit) => updateAgent(unit, agent.id, { whatsapp_number_id: randomUUID() }, DEFAULT_PLAN_MODELS))).rejects.toMatchObject({
    code: 'WHATSAPP_NUMBER_NOT_FOUND',
    status: 422,
  });
  // An email agent's router does not find a WhatsApp agent.
  await expect(inUnit((unit) => updateAgent(unit, agent.id, { name: 'x' }, DEFAULT_PLAN_MODELS, 'email'))).rejects.toMatchObject({ code: 'NOT_FOUND' });

  const inactive = await inUnit((unit) => updateWhatsappNumber(unit, key, number.id, { status: 'inactive' }));
  expect(inactive.status).toBe('inactive');
  expect(await api.deps.db('agents').where({ id: agent.id }).first('status')).toEqual({ status: 'error' });
  expect(await eventsOf('agent.status_changed', agent.id)).toEqual([{ data: { agent_id: agent.id, status: 'error', reason: 'whatsapp_channel_inactive' } }]);
  expect((await listWhatsappNumbers(scope(), { status: 'inactive' }, { skip: 0, limit: 100 })).items.map((n) => n.id)).toEqual([number.id]);

  await expect(inUnit((unit) => deleteWhatsappNumber(unit, number.id))).rejects.toMatchObject({ code: 'CONFLICT', extra: { agents: 1 } });
  await inUnit((unit) => deleteAgent(unit, agent.id));
  expect(await eventsOf('agent.deleted', agent.id)).toHaveLength(1);
  await inUnit((unit) => deleteWhatsappNumber(unit, number.id));
  expect(await api.deps.db('whatsapp_numbers').where({ id: number.id })).toEqual([]);

  expect(await auditOf(agent.id)).toEqual([
    { action: 'agent.created', details: { type: 'whatsapp' } },
    { action: 'agent.deleted', details: { type: 'whatsapp' } },
  ]);
  expect(await auditOf(number.id)).toEqual([
    { action: 'whatsapp_number.created', details: {} },
    { action: 'whatsapp_number.updated', details: { fields: ['status'], agents_moved: [agent.id] } },
    { action: 'whatsapp_number.deleted', details: {} },
  ]);
});

it("lists a machine agent's runs through the service, by asset; an unknown agent is 404", async () => {
  const agent = await inUnit((unit) =>
    createAgent(
      unit,
      { type: 'machine', name: 'Watcher', system_prompt: 'Watch.', trigger_config: { event_types: ['vibration.threshold_exceeded'], cooldown_minutes: 5 } },
      DEFAULT_PLAN_MODELS,
    ),
  );
  const assetId = randomUUID();
  const run = {
    tenantId: tenant.tenantId,
    agentId: agent.id,
    eventType: 'vibration.threshold_exceeded',
    action: 'recorded' as const,
    replyText: 'noted',
    engine: 'built-in' as const,
  };
  await insertMachineAgentRun(api.deps.db, { ...run, assetId: null, eventId: randomUUID() });
  await insertMachineAgentRun(api.deps.db, { ...run, assetId, eventId: randomUUID() });

  const page = { skip: 0, limit: 10 };
  expect((await listMachineAgentRuns(scope(), agent.id, {}, page)).total).toBe(2);
  expect((await listMachineAgentRuns(scope(), agent.id, { asset_id: assetId }, page)).items).toEqual([
    expect.objectContaining({ agent_id: agent.id, asset_id: assetId, reply_text: 'noted' }),
  ]);
  // An asset_id that is not a UUID matches nothing rather than failing the query.
  expect((await listMachineAgentRuns(scope(), agent.id, { asset_id: 'pump-1' }, page)).total).toBe(0);
  await expect(listMachineAgentRuns(scope(), randomUUID(), {}, page)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
});

it('creates a tool and deletes it through the service: it leaves the agents that listed it; a taken name is 409', async () => {
  const name = `lookup_${randomUUID().slice(0, 8)}`;
  const tool = await inUnit((unit) =>
    createTool(unit, { name, description: 'Asset health', kind: 'built_in', builtin: 'get_asset_health', parameters: { type: 'object', properties: {} } }),
  );
  expect(tool).toMatchObject({ name, kind: 'built_in', builtin: 'get_asset_health', parameters: { type: 'object', properties: {} } });
  await expect(inUnit((unit) => createTool(unit, { name, description: 'again', kind: 'built_in', builtin: 'get_asset_health' }))).rejects.toMatchObject({ code: 'CONFLICT' });
  const agent = await inUnit((unit) =>
    createAgent(
      unit,
      { type: 'machine', name: 'Tooled', system_prompt: 'Use tools.', tools: [tool.id], trigger_config: { event_types: ['a.b'], cooldown_minutes: 0 } },
      DEFAULT_PLAN_MODELS,
    ),
  );
  await expect(
    inUnit((unit) =>
      createAgent(
        unit,
        { type: 'machine', name: 'Unknown tool', system_prompt: '.', tools: [randomUUID()], trigger_config: { event_types: ['a.b'], cooldown_minutes: 0 } },
        DEFAULT_PLAN_MODELS,
      ),
    ),
  ).rejects.toMatchObject({
    code: 'TOOL_NOT_FOUND',
  });

  await inUnit((unit) => deleteTool(unit, tool.id));
  expect(await api.deps.db('tools').where({ id: tool.id })).toEqual([]);
  expect(await api.deps.db('agents').where({ id: agent.id }).first('tools')).toEqual({ tools: [] });
  expect(await auditOf(tool.id)).toEqual([
    { action: 'tool.created', details: { kind: 'built_in' } },
    { action: 'tool.deleted', details: { removed_from_agents: [agent.id] } },
  ]);
});

it('adds an email account verified by a real handshake, rotates its inbound secret, and finds it for inbound mail by that secret', async () => {
  const deps: EmailAccountDeps = { db: api.deps.db, dataEncryptionKey: key, allowPrivateDestinations: api.deps.config.webhooks.allowPrivateDestinations };
  const body = { name: 'Support', email_address: 'support@plant.example.com', smtp_host: smtp.host, smtp_port: smtp.port, smtp_secure: false, username: smtp.username };
  // A wrong password fails the handshake (422) and nothing is stored.
  const before = await api.deps.db('email_accounts').where({ tenant_id: tenant.tenantId }).count({ n: '*' });
  await expect(createEmailAccount(deps, context(), { ...body, password: 'wrong-password' })).rejects.toMatchObject({ code: 'EMAIL_ACCOUNT_VERIFICATION_FAILED', status: 422 });
  expect(await api.deps.db('email_accounts').where({ tenant_id: tenant.tenantId }).count({ n: '*' })).toEqual(before);

  const { account, inboundSecret } = await createEmailAccount(deps, context(), { ...body, password: SMTP_PASSWORD });
  expect(account).toMatchObject({ status: 'active', smtp_secure: false, verified_at: expect.any(Date), password_encrypted: expect.any(String) });
  expect(account.password_encrypted).not.toContain(SMTP_PASSWORD);

  const signature = `sha256=${'0'.repeat(64)}`;
  expect((await receivingAccount(deps, account.id, signature)).secret).toBe(inboundSecret);
  const rotated = await inUnit((unit) => rotateInboundSecret(unit, key, account.id));
  expect(rotated).not.toBe(inboundSecret);
  expect((await receivingAccount(deps, account.id, signature)).secret).toBe(rotated);
  // A malformed signature or an unknown account is refused before any body is read.
  await expect(receivingAccount(deps, account.id, 'sha256=zz')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  await expect(receivingAccount(deps, randomUUID(), signature)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });

  // Deactivating needs no handshake; the account is then deleted (no agent uses it).
  expect((await updateEmailAccount(deps, context(), account.id, { status: 'inactive' })).status).toBe('inactive');
  await inUnit((unit) => deleteEmailAccount(unit, account.id));
  expect(await auditOf(account.id)).toEqual([
    { action: 'email_account.created', details: {} },
    { action: 'email_account.inbound_secret_rotated', details: {} },
    { action: 'email_account.updated', details: { fields: ['status'], agents_moved: [] } },
    { action: 'email_account.deleted', details: {} },
  ]);
});

it("authenticates a webhook payload by the number's app secret, and knows its verify token", async () => {
  const appSecret = `app-secret-${randomUUID()}`;
  const verifyToken = `verify-${randomUUID()}`;
  const phoneNumberId = newPhoneNumberId();
  const number = await inUnit((unit) =>
    createWhatsappNumber(unit, key, {
      display_phone_number: '+34600111333',
      phone_number_id: phoneNumberId,
      access_token: `token-${randomUUID()}`,
      app_secret: appSecret,
      verify_token: verifyToken,
    }),
  );
  await expect(requireKnownVerifyToken(api.deps.db, verifyToken)).resolves.toBeUndefined();
  await expect(requireKnownVerifyToken(api.deps.db, `verify-${randomUUID()}`)).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });

  const payload = { object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: phoneNumberId } } }] }] };
  const rawBody = JSON.stringify(payload);
  const sign = (secret: string) => `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
  const deps = { db: api.deps.db, dataEncryptionKey: key };
  const numbers = await authenticatedNumbers(deps, payload, { rawBody, signature: sign(appSecret) });
  expect(numbers.get(phoneNumberId)).toMatchObject({ id: number.id, tenant_id: tenant.tenantId, status: 'active' });
  await expect(authenticatedNumbers(deps, payload, { rawBody, signature: sign('another-secret-of-nobody') })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  await expect(authenticatedNumbers(deps, payload, { rawBody, signature: undefined })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
});

it('signs in, rotates and ends a session through the service, each audited; reusing a rotated token revokes the family', async () => {
  const check = <T>(work: () => Promise<T>) => work();
  await expect(authenticate(api.deps.db, { email: tenant.email, password: 'wrong' }, check)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  // A password check the caller's limit refuses answers null, whatever the credentials.
  expect(await authenticate(api.deps.db, { email: tenant.email, password: tenant.password }, async () => null)).toBeNull();
  const user = await authenticate(api.deps.db, { email: tenant.email, password: tenant.password }, check);
  expect(user).toMatchObject({ id: tenant.adminUserId, tenant_id: tenant.tenantId });

  const request = { requestId: null };
  const { token: first } = await startSession(api.deps.db, request, user!);
  const rotated = await refreshSession(api.deps.db, request, first);
  expect(rotated.user.id).toBe(tenant.adminUserId);
  await expect(refreshSession(api.deps.db, request, first)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', extra: { reason: 'reuse_detected' } });
  // The whole family is revoked: the token the rotation gave is refused too, and not audited.
  await expect(refreshSession(api.deps.db, request, rotated.token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', extra: { reason: 'revoked' } });

  const { token: second, sessionId } = await startSession(api.deps.db, request, user!);
  await endSession(api.deps.db, request, { tenantId: tenant.tenantId, userId: tenant.adminUserId, sessionId }, second);
  await expect(refreshSession(api.deps.db, request, second)).rejects.toMatchObject({ extra: { reason: 'revoked' } });

  const actions = await api.deps.db('audit_log').where({ tenant_id: tenant.tenantId, resource_type: 'user', resource_id: tenant.adminUserId }).orderBy('seq').pluck('action');
  // The first login is createTenant's, over HTTP.
  expect(actions).toEqual(['auth.login', 'auth.login', 'auth.refresh', 'auth.refresh_reuse_detected', 'auth.login', 'auth.logout']);
});
