/**
 * The inbound routes answer what their OpenAPI responses say when a tenant with `pii.auto_redact`
 * is past its share of the process's redaction pool (infra/redaction-pool.ts): 429 with
 * Retry-After and `scope: redaction`, for inbound e-mail and the WhatsApp webhook alike; once the
 * share is free the same message is taken. The share is held here by the test itself, in the
 * process's own redaction limiter (the stack's API runs in this process), by tasks that end when
 * the test says so: the refusal depends neither on how fast the machine scans nor on how its
 * threads are scheduled.
 */
import { createHmac, randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { storedTextRedactor, TENANT_WAITING } from '../../infra/redaction-pool';
import { tenantLimiter } from '../../infra/tenant-limiter';
import { createTenant, startTestApi, TestApi, TestResponse, TestTenant } from '../support/api';
import { densePiiMail } from '../support/hostile-corpus/text';
import { authenticatedSender, sinkEmailAccount } from '../support/mail';
import { postWhatsapp, registerWhatsappNumber, whatsappPayload } from '../support/whatsapp-inbound';

jest.setTimeout(180_000);

const APP_SECRET = `app-secret-${randomUUID()}`;
/** Longer than what is redacted in place (16 Ki characters): it goes to the pool. */
const LONG_TEXT = densePiiMail(64 * 1024);

let api: TestApi;
let tenant: TestTenant;
let account: { id: string; inbound_secret: string };
let phoneNumberId: string;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
  await api.deps.db('tenant_settings').insert({ tenant_id: tenant.tenantId, pii_auto_redact: true }).onConflict('tenant_id').merge();
  account = await sinkEmailAccount(api, tenant);
  ({ phoneNumberId } = await registerWhatsappNumber(api, tenant, APP_SECRET));
});
afterAll(async () => {
  await api?.close();
});

async function postMail(text: string): Promise<TestResponse> {
  const from = 'Outsider <outsider@outside.example>';
  const raw = await new MailComposer({
    from,
    to: 'support@plant.example.com',
    subject: 'Readings',
    text,
    messageId: `<${randomUUID()}@outside.example>`,
    headers: authenticatedSender(from),
  })
    .compile()
    .build();
  return api.request(`/api/v1/email/inbound/${account.id}`, {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', 'x-inbound-signature': `sha256=${createHmac('sha256', account.inbound_secret).update(raw).digest('hex')}` },
    body: raw,
  });
}

const postMessage = (text: string) => postWhatsapp(api, whatsappPayload(phoneNumberId, [{ id: `wamid.${randomUUID()}`, from: '34611222444', text }]), APP_SECRET);

it("answers 429 with scope redaction past the tenant's share of the redaction pool, as both routes' documents say, and takes the message once it is free", async () => {
  // The tenant's share of the redaction pool: one task running, TENANT_WAITING waiting, all held
  // until the posts are answered. The limiter is the one the process's redactor uses (one per pool name).
  storedTextRedactor();
  const limiter = tenantLimiter('pii_redaction', { maxInFlight: 1, maxWaiting: TENANT_WAITING, maxWaitMs: 30_000 });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = Array.from({ length: 1 + TENANT_WAITING }, () => limiter.run(tenant.tenantId, () => gate));
  try {
    for (const res of [await postMail(LONG_TEXT), await postMessage(LONG_TEXT)]) {
      expect({ status: res.status, error_code: res.body.error_code, scope: res.body.scope, retryAfter: res.headers.get('retry-after') }).toEqual({
        status: 429,
        error_code: 'RATE_LIMITED',
        scope: 'redaction',
        retryAfter: expect.stringMatching(/^\d+$/),
      });
    }
  } finally {
    release();
    await Promise.allSettled(held);
  }
  expect((await postMail(LONG_TEXT)).status).toBe(200);
  expect((await postMessage(LONG_TEXT)).status).toBe(200);

  // What each route's document tells its sender about these refusals.
  const document = (await api.request('/api/v1/openapi.json')).body as { paths: Record<string, { post: { responses: Record<string, { description: string }> } }> };
  for (const path of ['/api/v1/email/inbound/{account_id}', '/api/v1/whatsapp/webhook']) {
    const { responses } = document.paths[path]!.post;
    expect([path, responses['429']?.description]).toEqual([path, expect.stringContaining('`redaction`')]);
    expect([path, responses['422']?.description]).toEqual([path, expect.stringContaining('`text.scan_budget`')]);
  }
});
