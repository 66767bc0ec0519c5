/**
 * No personal data in Temporal (issue 23), on the real stack: the flows below start the
 * notification, scheduled-report, machine-agent and webhook-delivery workflows with
 * personal data in play (recipients, event text, a mail server whose refusal echoes the address),
 * and the shared scanner (test/support/history-text.ts: every run, payloads decoded, failures
 * with their causes) finds none of it in any of their histories. Plans, exports and erasures are
 * scanned in their own tests (maintenance, privacy).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { FULL_SERVICE_GRANT, signInternalToken } from '../../domain/auth/tokens';
import { deliveryIdFor } from '../../domain/webhooks/delivery-id';
import { workflowIds } from '../../infra/workflow-ids';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';
import { expectNoPersonalData } from '../support/history-text';
import { REFUSED_DOMAIN } from '../support/smtp-sink';
import { until } from '../support/until';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

let api: TestApi;
let t: TestTenant;
let receiver: WebhookReceiver;
let client: Client;
let internalToken: string;

beforeAll(async () => {
  api = await startTestApi();
  [t, receiver] = await Promise.all([createTenant(api), startWebhookReceiver()]);
  client = await api.deps.temporal.client();
  internalToken = signInternalToken('test-suite', api.deps.config.secrets.internalJwt, FULL_SERVICE_GRANT);
});
afterAll(async () => {
  await receiver?.close();
  await api?.close();
});

const refusedAddress = () => `ops-${randomUUID().slice(0, 8)}@${REFUSED_DOMAIN}`;

it("a mail server refusing a recipient: the notification fails at once with the code only, in its row and its history, never the server's text", async () => {
  const refused = refusedAddress();
  await api.deps.db('users').insert({ tenant_id: t.tenantId, email: refused, password_hash: 'not-a-login', role: 'viewer' });
  const res = await api.request('/internal/notifications', {
    method: 'POST',
    token: internalToken,
    json: { tenant_id: t.tenantId, category: 'test.refused', recipients: [refused], subject: 'Pump P-101 alarm', body: 'Call Maria Schmidt on +49 170 1234567' },
  });
  expect(res.status).toBe(202);
  const row = await until(
    () => api.deps.db('notifications').where({ id: res.body.id }).first('status', 'last_error', 'attempts'),
    (r) => r?.status === 'failed',
    'the refused notification',
  );
  // A permanent refusal is not retried; the stored error is the code.
  expect(row).toEqual({ status: 'failed', last_error: 'SMTP delivery refused: smtp_550', attempts: 1 });
  await expectNoPersonalData(client, workflowIds.notification(t.tenantId, res.body.id), res.body.id, [refused, refused.split('@')[0], 'Maria Schmidt', '1234567']);
});

it('a scheduled report mailed to a refused recipient: the run fails with a fixed text, and its workflow (which also generated the report) holds no address', async () => {
  const refused = refusedAddress();
  const created = await api.request('/api/v1/scheduled-reports', {
    method: 'POST',
    token: t.token,
    json: {
      name: 'Weekly compliance',
      report_type: 'maintenance_compliance',
      format: 'xlsx',
      period_rule: 'previous_month',
      schedule: { cron: '0 6 * * 1' },
      time_zone: 'UTC',
      recipients: [refused],
    },
  });
  expect(created.status).toBe(201);
  await client.schedule.getHandle(workflowIds.scheduledReport(t.tenantId, created.body.id)).trigger();
  const run = await until(
    () => api.deps.db('scheduled_report_runs').where({ tenant_id: t.tenantId, scheduled_report_id: created.body.id }).first('status', 'error', 'workflow_id', 'report_id'),
    (r) => r?.status === 'failed',
    'the failed run',
  );
  expect(run).toMatchObject({ status: 'failed', error: 'email_failed' });
  await expectNoPersonalData(client, run.workflow_id, created.body.id, [refused, refused.split('@')[0]]);
});

it('a machine agent run, its notification and a webhook delivery of an event with personal text hold ids only', async () => {
  const agent = await api.request('/api/v1/agents', {
    method: 'POST',
    token: t.token,
    json: { name: 'Leak watcher', type: 'machine', system_prompt: 'Watch leaks.', trigger_config: { event_types: ['leak.detected'], cooldown_minutes: 0 } },
  });
  expect(agent.status).toBe(201);
  const path = `/r/${randomUUID()}`;
  const hook = await api.request('/api/v1/integrations/webhooks', { method: 'POST', token: t.token, json: { url: receiver.url(path), events: ['leak.detected'] } });
  expect(hook.status).toBe(201);
  const assetId = randomUUID();
  const event = await api.request('/internal/events', {
    method: 'POST',
    token: internalToken,
    json: { tenant_id: t.tenantId, type: 'leak.detected', data: { asset_id: assetId, reported_by: 'Maria Schmidt', callback: '+49 170 1234567' } },
  });
  expect(event.status).toBe(202);
  await receiver.waitFor(() => receiver.on(path).length === 1, 30_000, 'the delivery');
  // The receiver got the data (it is the tenant's own integration); Temporal did not.
  expect(receiver.on(path)[0].body).toContain('Maria Schmidt');
  const run = await until(
    () => api.deps.db('machine_agent_runs').where({ agent_id: agent.body.id }).first('id', 'notification_id'),
    (r) => Boolean(r?.notification_id),
    'the run',
  );
  await until(
    () => api.deps.db('notifications').where({ id: run.notification_id }).first('status'),
    (n) => n?.status === 'sent',
    'the notification',
  );

  const personal = ['Maria Schmidt', '1234567', t.email];
  await expectNoPersonalData(client, workflowIds.machineAgent(t.tenantId, agent.body.id, assetId), event.body.id, personal);
  await expectNoPersonalData(client, workflowIds.notification(t.tenantId, run.notification_id), run.notification_id, personal);
  const deliveryId = deliveryIdFor(event.body.id, hook.body.id);
  await expectNoPersonalData(client, workflowIds.webhookDelivery(t.tenantId, deliveryId), deliveryId, personal);
});
