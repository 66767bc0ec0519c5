/**
 * `industrial-ops tenants ...` as a real process against the test stack: create (the admin's
 * password from stdin or a file, never argv), list, show, set-plan, suspend and resume, with
 * their output, exit codes, rows and audit records; and what a suspension stops (logins, tokens,
 * service tokens, the outbox, scheduled reports, agents' answers) and what a resume gives back.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { appendEvent } from '../../db/outbox';
import { signInternalToken } from '../../domain/auth/tokens';
import { loadConfig } from '../../infra/config';
import { workflowIds } from '../../infra/workflow-ids';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { runCli, runJson, TEST_OPERATOR } from '../support/cli';
import { until, untilValue } from '../support/until';
import { postWhatsapp, registerWhatsappNumber, whatsappPayload } from '../support/whatsapp-inbound';

let api: TestApi;
const base = loadConfig(process.env);

beforeAll(async () => {
  // No session cache: a suspension is seen by the next request (the default bounds it to 5 s per process).
  api = await startTestApi({ auth: { ...base.auth, sessionCheckCacheMs: 0 } });
});
afterAll(() => api.close());

const tenantCount = async () => Number((await api.deps.db('tenants').count({ n: '*' }))[0].n);
const auditOf = (tenantId: string, action: string) => api.deps.db('audit_log').where({ tenant_id: tenantId, action }).select('actor_type', 'actor_id', 'resource_id', 'details');
const login = (email: string, password: string) => api.request('/api/v1/auth/login', { method: 'POST', json: { email, password } });

describe('tenants create', () => {
  it('creates a tenant and its admin with the password from stdin, answers the ids as JSON, audits the operator, and the admin signs in', async () => {
    const email = `ops-${Date.now()}@acme-plant.example.com`;
    const out = await runJson(['tenants', 'create', '--name', 'Acme Plant', '--plan', 'starter', '--admin-email', email, '--password-stdin'], { input: 'correct horse battery\n' });
    expect(out).toEqual({ tenant_id: expect.any(String), admin_user_id: expect.any(String), slug: 'acme-plant', plan: 'starter' });
    expect(await api.deps.db('tenants').where({ id: out.tenant_id }).first('name', 'plan', 'suspended_at')).toEqual({ name: 'Acme Plant', plan: 'starter', suspended_at: null });
    expect(await auditOf(out.tenant_id, 'tenant.created')).toEqual([
      { actor_type: 'operator', actor_id: TEST_OPERATOR, resource_id: out.tenant_id, details: { plan: 'starter', admin_user_id: out.admin_user_id } },
    ]);
    // The trailing newline of stdin is not part of the password.
    expect((await login(email, 'correct horse battery')).status).toBe(200);
  });

  it('reads the password from a file, prints text for people, and accepts the addresses login accepts', async () => {
    const local = `ops-${Date.now()}`;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-'));
    const file = path.join(dir, 'password');
    await fs.writeFile(file, 'correct horse battery staple\n', { mode: 0o600 });
    const run = await runCli(['tenants', 'create', '--name', 'Test Plant', '--plan', 'free', '--admin-email', ` ${local.toUpperCase()}@Plant.Test `, '--password-file', file]);
    await fs.rm(dir, { recursive: true });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^created tenant test-plant(-[a-z0-9]+)? \\([0-9a-f-]{36}\\) on the free plan; admin ${local}@plant.test \\([0-9a-f-]{36}\\)\\n$`));
    expect((await login(`${local}@plant.test`, 'correct horse battery staple')).status).toBe(200);
  });

  it('refuses a password on the command line, a bad plan, a short password, a non-address and a missing password, creating nothing', async () => {
    const before = await tenantCount();
    const args = ['tenants', 'create', '--name', 'X', '--plan', 'free', '--admin-email', 'x@y.example.com'];
    // The old --admin-password is gone: an unknown option, and the password never reaches a process list.
    const argv = await runCli(['--json', ...args, '--admin-password', 'long enough pass']);
    expect({ code: argv.code, json: argv.json }).toEqual({ code: 2, json: { error_code: 'USAGE', detail: "unknown option '--admin-password'" } });
    const plan = await runCli(['--json', 'tenants', 'create', '--name', 'X', '--plan', 'gold', '--admin-email', 'x@y.example.com', '--password-stdin'], {
      input: 'long enough pass',
    });
    expect({ code: plan.code, code_: plan.json.error_code, detail: plan.json.detail }).toEqual({
      code: 2,
      code_: 'USAGE',
      detail: expect.stringContaining('free, starter, professional, enterprise'),
    });
    const short = await runCli(['--json', ...args, '--password-stdin'], { input: 'short' });
    expect({ code: short.code, json: short.json }).toEqual({
      code: 1,
      json: {
        error_code: 'VALIDATION_ERROR',
        detail: 'password needs at least 12 characters',
        fields: [{ field: 'password', message: 'needs at least 12 characters', type: 'any.invalid' }],
      },
    });
    // Text mode: the error on stderr, nothing on stdout.
    const address = await runCli(['tenants', 'create', '--name', 'X', '--plan', 'free', '--admin-email', 'no-at-sign.test', '--password-stdin'], { input: 'long enough pass' });
    expect({ code: address.code, stdout: address.stdout, stderr: address.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: email is not an email address (VALIDATION_ERROR)\n',
    });
    // No terminal, no --password-stdin or --password-file: nothing to ask, a usage error.
    const none = await runCli(['--json', ...args]);
    expect({ code: none.code, error_code: none.json.error_code, detail: none.json.detail }).toEqual({
      code: 2,
      error_code: 'USAGE',
      detail: expect.stringContaining('--password-stdin or --password-file'),
    });
    expect(await tenantCount()).toBe(before);
  });

  it('refuses a slug in use with CONFLICT', async () => {
    const slug = `dup-${randomUUID().slice(0, 8)}`;
    const create = (email: string) =>
      runCli(['--json', 'tenants', 'create', '--name', 'Dup', '--slug', slug, '--plan', 'free', '--admin-email', email, '--password-stdin'], { input: 'long enough pass' });
    expect((await create(`a-${slug}@example.com`)).code).toBe(0);
    const again = await create(`b-${slug}@example.com`);
    expect({ code: again.code, json: again.json }).toEqual({ code: 1, json: { error_code: 'CONFLICT', detail: `a tenant with slug "${slug}" already exists` } });
  });
});

describe('tenants list, show and set-plan', () => {
  it('lists and shows a tenant with its usage against the plan, and changes its plan with an audit record', async () => {
    const t = await createTenant(api, 'starter');
    const row = await api.deps.db('tenants').where({ id: t.tenantId }).first('slug');
    const listed = await runJson(['tenants', 'list', '--status', 'active', '--limit', '100']);
    expect(listed).toMatchObject({ skip: 0, limit: 100, total: expect.any(Number) });
    const page = await runJson(['tenants', 'list', '--limit', '1', '--skip', String(listed.total - 1)]);
    expect(page.items).toHaveLength(1);

    // Three more users: four in all, over the free plan's three.
    await api.deps.db('users').insert([1, 2, 3].map((n) => ({ tenant_id: t.tenantId, email: `u${n}-${randomUUID()}@example.com`, password_hash: 'x', role: 'viewer' })));
    const shown = await runJson(['tenants', 'show', row.slug]);
    expect(shown).toMatchObject({ id: t.tenantId, slug: row.slug, plan: 'starter', status: 'active', suspended_at: null, created_at: expect.any(String) });
    expect(shown.usage).toContainEqual({ resource: 'users', count: 4, limit: 15 });
    expect(shown.usage).toContainEqual({ resource: 'agents', count: 0, limit: 10 });

    const changed = await runJson(['tenants', 'set-plan', t.tenantId, 'free']);
    expect(changed).toMatchObject({ tenant: { id: t.tenantId, plan: 'free' }, previous_plan: 'starter', over_limit: [{ resource: 'users', count: 4, limit: 3 }] });
    expect(await api.deps.db('tenants').where({ id: t.tenantId }).first('plan')).toEqual({ plan: 'free' });
    expect(await auditOf(t.tenantId, 'tenant.plan_changed')).toEqual([
      { actor_type: 'operator', actor_id: TEST_OPERATOR, resource_id: t.tenantId, details: { from: 'starter', to: 'free' } },
    ]);
    const text = await runCli(['tenants', 'set-plan', row.slug, 'enterprise']);
    expect(text).toMatchObject({ code: 0, stdout: `${row.slug}: plan free -> enterprise\n` });

    const unknown = await runCli(['--json', 'tenants', 'show', randomUUID()]);
    expect({ code: unknown.code, json: unknown.json }).toEqual({ code: 1, json: { error_code: 'NOT_FOUND', detail: 'tenant not found' } });
    const badPlan = await runCli(['tenants', 'set-plan', row.slug, 'gold']);
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain("value 'gold' is invalid for argument 'plan'");
  });
});

describe('tenants suspend and resume', () => {
  let t: TestTenant;
  let slug: string;
  beforeAll(async () => {
    t = await createTenant(api);
    slug = (await api.deps.db('tenants').where({ id: t.tenantId }).first('slug')).slug;
  });

  it("refuses the tenant's logins, tokens, refreshes and service tokens with TENANT_SUSPENDED while suspended, and accepts them again once resumed", async () => {
    const serviceToken = signInternalToken('partner', base.secrets.internalJwt, { scopes: ['events:write'], tenants: [t.tenantId] });
    const event = { tenant_id: t.tenantId, type: 'partner.checked', data: { n: 1 } };
    expect((await api.request('/api/v1/assets', { token: t.token })).status).toBe(200);

    const suspended = await runJson(['tenants', 'suspend', slug]);
    expect(suspended).toMatchObject({ changed: true, tenant: { id: t.tenantId, status: 'suspended', suspended_at: expect.any(String) } });
    expect(await auditOf(t.tenantId, 'tenant.suspended')).toEqual([{ actor_type: 'operator', actor_id: TEST_OPERATOR, resource_id: t.tenantId, details: {} }]);

    expectError(await api.request('/api/v1/assets', { token: t.token }), 403, 'TENANT_SUSPENDED');
    expectError(await login(t.email, t.password), 403, 'TENANT_SUSPENDED');
    // A wrong password learns nothing of the suspension.
    expectError(await login(t.email, 'not-the-password-1'), 401, 'UNAUTHENTICATED');
    const refresh = await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: t.refreshToken } });
    expectError(refresh, 403, 'TENANT_SUSPENDED');
    expectError(await api.request('/internal/events', { method: 'POST', token: serviceToken, json: event }), 403, 'TENANT_SUSPENDED');

    // Again: nothing changes, nothing is audited twice.
    expect(await runJson(['tenants', 'suspend', t.tenantId])).toMatchObject({ changed: false, tenant: { status: 'suspended' } });
    expect(await auditOf(t.tenantId, 'tenant.suspended')).toHaveLength(1);
    expect((await runJson(['tenants', 'list', '--status', 'suspended', '--limit', '100'])).items.map((i: { id: string }) => i.id)).toContain(t.tenantId);

    const resumed = await runCli(['tenants', 'resume', slug]);
    expect(resumed).toMatchObject({ code: 0, stdout: `${slug} is active now\n` });
    expect(await auditOf(t.tenantId, 'tenant.resumed')).toHaveLength(1);
    // The sessions were not revoked: the same tokens work again.
    expect((await api.request('/api/v1/assets', { token: t.token })).status).toBe(200);
    expect((await api.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: t.refreshToken } })).status).toBe(200);
    expect((await login(t.email, t.password)).status).toBe(200);
    expect((await api.request('/internal/events', { method: 'POST', token: serviceToken, json: event })).status).toBe(202);
  });

  it("holds the tenant's outbox while suspended (counted as held, not pending) and dispatches it on resume", async () => {
    const other = await createTenant(api);
    await runJson(['tenants', 'suspend', t.tenantId]);
    const [held, barrier] = await api.deps.db.transaction(async (tx) => [
      (await appendEvent(tx, { tenantId: t.tenantId, type: 'asset.created', data: { asset_id: 'held' } })).id,
      (await appendEvent(tx, { tenantId: other.tenantId, type: 'asset.created', data: { asset_id: 'barrier' } })).id,
    ]);
    // The other tenant's event, stored with it, is dispatched: the dispatcher ran past the held one.
    await until(
      () => api.deps.db('outbox_events').where({ id: barrier }).first('dispatched_at'),
      (row) => row.dispatched_at !== null,
      "the other tenant's event dispatched",
    );
    expect(await api.deps.db('outbox_events').where({ id: held }).first('dispatched_at', 'attempts')).toEqual({ dispatched_at: null, attempts: 0 });
    const backlog = await runJson(['outbox', 'backlog', '--tenant', t.tenantId]);
    expect(backlog).toMatchObject({ pending: 0, retrying: 0, held: 1, oldest_pending_seconds: 0, items: [] });

    await runJson(['tenants', 'resume', t.tenantId]);
    await until(
      () => api.deps.db('outbox_events').where({ id: held }).first('dispatched_at'),
      (row) => row.dispatched_at !== null,
      'the held event dispatched on resume',
      15_000,
    );
    expect(await runJson(['outbox', 'backlog', '--tenant', t.tenantId])).toMatchObject({ held: 0 });
  });

  it("skips a scheduled report's firing while suspended: nothing is generated or mailed", async () => {
    const created = await api.request('/api/v1/scheduled-reports', {
      method: 'POST',
      token: t.token,
      json: { name: 'Alerts', report_type: 'open_alerts', format: 'pdf', schedule: { cron: '0 6 1 * *' }, time_zone: 'UTC', recipients: ['lead@plant.example.com'] },
    });
    expect(created.status).toBe(201);
    await runJson(['tenants', 'suspend', t.tenantId]);
    const client = await api.deps.temporal.client();
    const schedule = client.schedule.getHandle(workflowIds.scheduledReport(t.tenantId, created.body.id));
    await schedule.trigger();
    const fired = await untilValue(async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId, 'the firing');
    await client.workflow.getHandle(fired).result();
    expect(await api.deps.db('scheduled_report_runs').where({ tenant_id: t.tenantId })).toEqual([]);
    expect(await api.deps.db('report_jobs').where({ tenant_id: t.tenantId, scheduled_report_id: created.body.id })).toEqual([]);
    await runJson(['tenants', 'resume', t.tenantId]);
  });

  it('stores an inbound message while suspended without starting its conversation (the agent does not answer)', async () => {
    const appSecret = `app-secret-${randomUUID()}`;
    const { id: numberId, phoneNumberId } = await registerWhatsappNumber(api, t, appSecret);
    await api.request('/api/v1/whatsapp/agents', { method: 'POST', token: t.token, json: { name: 'wa', system_prompt: 'x', whatsapp_number_id: numberId } });
    await runJson(['tenants', 'suspend', t.tenantId]);
    const res = await postWhatsapp(api, whatsappPayload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from: '34699000111', text: 'Pump 3 is leaking' }]), appSecret);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { stored: 1, duplicates: 0, unrouted: 0 } });
    const message = await api.deps.db('messages').where({ tenant_id: t.tenantId, direction: 'inbound' }).first('conversation_id');
    const client = await api.deps.temporal.client();
    await expect(client.workflow.getHandle(workflowIds.conversation(t.tenantId, message.conversation_id)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await runJson(['tenants', 'resume', t.tenantId]);
  });
});
