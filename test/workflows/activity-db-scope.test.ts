/**
 * The worker's row-level security scope per activity (activities/db-scope.ts) with the production
 * interceptors: an activity whose input names its tenant sees that tenant's rows only, even through
 * a query without the tenant filter; an activity that names none (a system job) sees every tenant.
 */
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { provisionTenant } from '../../db/tenants';
import { runNotificationWorkflow } from '../support/notification-run';
import { createTimeSkippingEnv } from '../support/temporal-env';
import { startTestPostgres, TestPostgres } from '../support/test-postgres';

let env: TestWorkflowEnvironment;
let pg: TestPostgres;
const tenants: string[] = [];
beforeAll(async () => {
  [pg, env] = await Promise.all([startTestPostgres(), createTimeSkippingEnv()]);
  for (const name of ['Scope A', 'Scope B']) {
    const t = await provisionTenant(pg.db, { name, plan: 'free', adminEmail: `admin-${randomUUID()}@example.com`, adminPassword: `pw-${randomUUID()}` });
    await pg.db('assets').insert({ tenant_id: t.tenant_id, name: `${name} pump`, type: 'pump' });
    tenants.push(t.tenant_id);
  }
}, 120_000);
afterAll(async () => {
  await env?.teardown();
  await pg?.stop();
});

it("shows a tenant's activity that tenant's rows only, and a system job every tenant's", async () => {
  const [a, b] = tenants as [string, string];
  const seen: { tenant?: string[]; system?: string[] } = {};
  const tenantsOfAssets = async () => ((await pg.db.raw('select distinct tenant_id from assets order by 1')).rows as { tenant_id: string }[]).map((r) => r.tenant_id);
  // The notification workflow's activities stand in for any tenant activity (input { tenantId }).
  await runNotificationWorkflow(env, a, {
    async deliverNotification() {
      seen.tenant = await tenantsOfAssets();
      return { status: 'recorded' };
    },
    async markNotificationFailed() {},
  });
  seen.system = await tenantsOfAssets(); // outside any activity: the system scope
  expect(seen).toEqual({ tenant: [a], system: [a, b].sort() });
});
