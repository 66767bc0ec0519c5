/**
 * Scheduled reports are no mail relay, over real HTTP with the dev server's Schedules and the
 * SMTP sink: a cron firing less than 15 minutes apart is refused, scheduled reports and their
 * outside recipients are capped by the plan, a run mails outside addresses only within the
 * tenant's daily count (the rest withheld on the run, never mailed), and the mail names the tenant.
 */
import { randomUUID } from 'node:crypto';
import { workflowIds } from '../../infra/workflow-ids';
import { OUTSIDE_MAIL_LIMITS, RESOURCE_LIMITS } from '../../domain/tenancy/plans';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { caughtMail, waitForMail } from '../support/mail';
import { untilValue } from '../support/until';

jest.setTimeout(120_000);

let api: TestApi;
let t: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  t = await createTenant(api);
});
afterAll(() => api.close());

const outsider = (label: string) => `${label}-${randomUUID().slice(0, 8)}@outside.example.com`;
const body = (fields: Record<string, unknown>) => ({
  name: 'Open alerts',
  report_type: 'open_alerts',
  format: 'xlsx',
  schedule: { interval_minutes: 1440 },
  recipients: [outsider('r')],
  ...fields,
});
const create = (tenant: TestTenant, fields: Record<string, unknown>) => api.request('/api/v1/scheduled-reports', { method: 'POST', token: tenant.token, json: body(fields) });

/** Fires the report's Schedule now and waits for the run to finish (polling the database: free tenants have few requests a second). */
async function runNow(tenant: TestTenant, id: string) {
  const client = await api.deps.temporal.client();
  await client.schedule.getHandle(workflowIds.scheduledReport(tenant.tenantId, id)).trigger();
  await untilValue(() => api.deps.db('scheduled_report_runs').where({ tenant_id: tenant.tenantId, scheduled_report_id: id }).whereNot({ status: 'running' }).first('id'));
  const runs = await api.request(`/api/v1/scheduled-reports/${id}/runs`, { token: tenant.token });
  expect(runs.body.total).toBe(1);
  return runs.body.items[0];
}

describe('cron schedules', () => {
  it('refuses a cron that fires less than 15 minutes apart, on create and on update', async () => {
    const everyMinute = await create(t, { schedule: { cron: '* * * * *' } });
    expectError(everyMinute, 422, 'VALIDATION_ERROR');
    expect(everyMinute.body.detail).toBe('schedule fires 1 minute apart within an hour; two runs of a scheduled report must be at least 15 minutes apart');
    expect(everyMinute.body.fields).toEqual([expect.objectContaining({ field: 'body.schedule' })]);
    expectError(await create(t, { schedule: { cron: '*/5 * * * *' } }), 422, 'VALIDATION_ERROR');
    expectError(await create(t, { schedule: { cron: '0,5 * * * *' } }), 422, 'VALIDATION_ERROR');
    // 01:59 and 03:00 are a minute apart on the night Berlin's clocks go forward.
    const clockChange = await create(t, { schedule: { cron: '0,59 1,3 * * *' }, time_zone: 'Europe/Berlin' });
    expectError(clockChange, 422, 'VALIDATION_ERROR');
    expect(clockChange.body.detail).toMatch(/at a clock change of the time zone/);

    const quarterly = await create(t, { schedule: { cron: '*/15 * * * *' } });
    expect(quarterly.status).toBe(201);
    const id = quarterly.body.id;
    const patch = (json: unknown) => api.request(`/api/v1/scheduled-reports/${id}`, { method: 'PATCH', token: t.token, json });
    expectError(await patch({ schedule: { cron: '0,50 * * * *' } }), 422, 'VALIDATION_ERROR');
    // The same cron in another zone is checked again: fine in UTC, not where the clock jumps past 02:00.
    expect((await patch({ schedule: { cron: '0,59 1,3 * * *' } })).status).toBe(200);
    expectError(await patch({ time_zone: 'Europe/Berlin' }), 422, 'VALIDATION_ERROR');
    expect((await api.request(`/api/v1/scheduled-reports/${id}`, { token: t.token })).body).toMatchObject({ schedule: { cron: '0,59 1,3 * * *' }, time_zone: 'UTC' });
  });
});

describe('plan limits', () => {
  it('caps scheduled reports per tenant and outside recipients per report', async () => {
    const free = await createTenant(api, 'free');
    const limit = RESOURCE_LIMITS.free.scheduled_reports!;
    for (let i = 0; i < limit; i += 1) expect((await create(free, { name: `Report ${i}` })).status).toBe(201);
    const over = await create(free, { name: 'One more' });
    expectError(over, 403, 'PLAN_LIMIT_REACHED');
    expect(over.body).toMatchObject({ resource: 'scheduled_reports', limit, detail: `the free plan allows ${limit} scheduled reports` });
    // Another tenant's count is its own.
    expect((await create(t, { name: 'Unaffected' })).status).toBe(201);

    // Outside addresses per report: the tenant's own users do not count.
    const other = await createTenant(api, 'free');
    const perSchedule = OUTSIDE_MAIL_LIMITS.free.perSchedule;
    const outside = Array.from({ length: perSchedule + 1 }, (_, i) => outsider(`o${i}`));
    const tooMany = await create(other, { recipients: outside });
    expectError(tooMany, 403, 'PLAN_LIMIT_REACHED');
    expect(tooMany.body).toMatchObject({ resource: 'outside_recipients_per_schedule', limit: perSchedule });
    const created = await create(other, { recipients: [other.email.toUpperCase(), ...outside.slice(0, perSchedule)] });
    expect(created.status).toBe(201);
    expectError(
      await api.request(`/api/v1/scheduled-reports/${created.body.id}`, { method: 'PATCH', token: other.token, json: { recipients: outside } }),
      403,
      'PLAN_LIMIT_REACHED',
    );
  });
});

describe('sending', () => {
  it("mails outside addresses only within the tenant's daily count, withholds the rest with the reason, and names the tenant", async () => {
    const free = await createTenant(api, 'free');
    const { perDay } = OUTSIDE_MAIL_LIMITS.free;
    // Earlier runs today left room for two more outside addresses.
    const today = new Date().toISOString().slice(0, 10);
    await api.deps.db('outside_recipient_days').insert({ tenant_id: free.tenantId, day: today, used: perDay - 2 });
    const outside = [outsider('first'), outsider('second'), outsider('third'), outsider('fourth')];
    const created = await create(free, { name: 'Alerts for partners', recipients: [outside[0], free.email, ...outside.slice(1)] });
    expect(created.status).toBe(201);

    const run = await runNow(free, created.body.id);
    expect(run).toMatchObject({
      status: 'sent',
      sent_to: 3,
      withheld: [
        { address: outside[2], reason: 'outside_recipients_per_day' },
        { address: outside[3], reason: 'outside_recipients_per_day' },
      ],
    });
    const mail = await waitForMail((m) => m.to.includes(free.email));
    expect(mail.to.sort()).toEqual([free.email, outside[0], outside[1]].sort());
    expect(caughtMail((m) => m.to.includes(outside[2]!) || m.to.includes(outside[3]!))).toEqual([]);
    expect((await api.deps.db('outside_recipient_days').where({ tenant_id: free.tenantId, day: today }).first()).used).toBe(perDay);

    // The tenant is named: display name, headers, closing line; the address is the platform's.
    const tenant = await api.deps.db('tenants').where({ id: free.tenantId }).first('name');
    const unfolded = mail.raw.replace(/\r?\n[ \t]+/g, ' ');
    expect(unfolded).toMatch(new RegExp(`^From: "?${tenant.name} via Industrial Ops"? <no-reply@localhost>`, 'm'));
    expect(unfolded).toMatch(new RegExp(`^X-Tenant-Id: ${free.tenantId}\\r?$`, 'im'));
    expect(unfolded).toMatch(new RegExp(`^X-Sent-On-Behalf-Of: ${tenant.name}\\r?$`, 'im'));
    // The text part (quoted-printable soft breaks joined) ends with the closing line.
    expect(mail.raw.replace(/=\r?\n/g, '')).toContain(`Sent by Industrial Ops on behalf of ${tenant.name} (tenant ${free.tenantId}).`);

    // The day's count is spent: a report to outside addresses only mails nobody, and says so.
    const outsideOnly = await create(free, { name: 'Partners only', recipients: [outsider('late')] });
    const withheld = await runNow(free, outsideOnly.body.id);
    expect(withheld).toMatchObject({ status: 'withheld', sent_to: 0, withheld: [{ reason: 'outside_recipients_per_day' }] });
  });
});
