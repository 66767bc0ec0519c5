/**
 * The anonymous provider callbacks (inbound e-mail, the WhatsApp webhook) against a flood, through
 * real HTTP: a request without a well-formed signature is answered before its body is read and
 * its connection closed (the rest of the body is never read); requests in flight beyond the
 * per-account and per-process caps are refused with 429 and Retry-After; a client address past its
 * budget per minute gets 429 with the error object.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../infra/config';
import { inboundSecretColumns, newInboundSecret } from '../../services/email-inbound-secret';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';

jest.setTimeout(120_000);

const MIB = 1024 * 1024;
const CAPS = { maxPerAddressPerMinute: 1_000, inFlightPerAccount: 2, inFlight: 3 };

let api: TestApi;
let t: TestTenant;

beforeAll(async () => {
  // One proxy hop trusted: each test speaks from an address of its own (X-Forwarded-For), so the
  // per-address counts, kept in PostgreSQL, are not shared with other test files.
  api = await startTestApi({ inbound: CAPS, api: { ...loadConfig(process.env).api, trustedProxyHops: 1 } });
  t = await createTenant(api);
});
afterAll(() => api?.close());

const someAddress = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

/** An inbound e-mail account of the tenant with its inbound secret, written directly (no SMTP check needed here). */
async function inboundAccount(): Promise<string> {
  const id = randomUUID();
  await api.deps.db('email_accounts').insert({
    id,
    tenant_id: t.tenantId,
    name: 'Support',
    email_address: `support-${id.slice(0, 8)}@plant.example.com`,
    smtp_host: 'smtp.example.com',
    smtp_port: 587,
    smtp_secure: false,
    ...inboundSecretColumns(newInboundSecret(), api.deps.config.secrets.dataEncryptionKey, id),
  });
  return id;
}

interface Upload {
  /** Status line and headers of the answer, once it came. */
  readonly answered: Promise<{ status: number; head: string; body: string }>;
  /** Resolves with the bytes of body the client got onto the connection when it closed. */
  readonly closed: Promise<number>;
  /** Writes body bytes as fast as the connection takes them, up to the announced length. */
  sendAll(): void;
  destroy(): void;
}

/** A POST on a raw socket announcing `length` bytes of body, of which it sends only `first` until told. */
function upload(path: string, headers: Record<string, string>, length: number, first = 64 * 1024): Upload {
  const url = new URL(api.baseUrl);
  const socket = net.connect({ host: url.hostname, port: Number(url.port) });
  let written = 0;
  let received = '';
  let stopped = false;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, `Content-Length: ${length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  socket.write(head);
  const write = (n: number) => {
    const part = chunk.subarray(0, Math.min(n, length - written));
    written += part.length;
    return socket.write(part);
  };
  write(first);
  const answered = new Promise<{ status: number; head: string; body: string }>((resolve) => {
    socket.on('data', (data) => {
      received += data.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const declared = /content-length: (\d+)/i.exec(received);
      if (end >= 0 && declared && received.length - end - 4 >= Number(declared[1]))
        resolve({ status: Number(received.slice(9, 12)), head: received.slice(0, end), body: received.slice(end + 4, end + 4 + Number(declared[1])) });
    });
  });
  const closed = new Promise<number>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => {
      stopped = true;
      resolve(written);
    });
  });
  return {
    answered,
    closed,
    sendAll() {
      const pump = () => {
        while (!stopped && written < length) if (!write(chunk.length)) return void socket.once('drain', pump);
      };
      pump();
    },
    destroy: () => socket.destroy(),
  };
}

it('refuses parallel large bodies without a well-formed signature before reading them, and closes their connections', async () => {
  const account = await inboundAccount();
  const address = someAddress();
  const attempts = [
    upload(`/api/v1/email/inbound/${account}`, { 'Content-Type': 'message/rfc822', 'X-Forwarded-For': address }, 10 * MIB),
    upload(`/api/v1/email/inbound/${account}`, { 'Content-Type': 'message/rfc822', 'X-Inbound-Signature': 'sha256=zz', 'X-Forwarded-For': address }, 10 * MIB),
    upload(`/api/v1/whatsapp/webhook`, { 'Content-Type': 'application/json', 'X-Forwarded-For': address }, 200_000, 1_000),
    ...Array.from({ length: 5 }, () => upload(`/api/v1/email/inbound/${account}`, { 'Content-Type': 'message/rfc822', 'X-Forwarded-For': address }, 10 * MIB)),
  ];
  // Answered although no body was sent beyond its first bytes (WhatsApp's JSON is read by the
  // body parser, which would otherwise wait for all 200 000 bytes).
  const answers = await Promise.all(attempts.map((a) => a.answered));
  for (const answer of answers) {
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error_code: 'UNAUTHENTICATED', detail: expect.stringMatching(/signature/i) });
    expect(answer.head).toMatch(/^connection: close$/im);
  }
  // The client then tries to send the rest: the server has closed the connection and reads no more.
  for (const a of attempts) a.sendAll();
  const written = await Promise.all(attempts.map((a) => a.closed));
  expect(written[0]).toBeLessThan(10 * MIB);
  expect(written.filter((n, i) => i !== 2 && n >= 10 * MIB)).toEqual([]);
});

it('refuses requests in flight beyond the per-account and the per-process caps with 429 and Retry-After', async () => {
  const [a, b] = [await inboundAccount(), await inboundAccount()];
  const address = someAddress();
  // A signature of the right form (not the right value): each is admitted and its body awaited.
  const held = (account: string) =>
    upload(`/api/v1/email/inbound/${account}`, { 'Content-Type': 'message/rfc822', 'X-Inbound-Signature': `sha256=${'a'.repeat(64)}`, 'X-Forwarded-For': address }, 1 * MIB);
  const inFlight = [held(a), held(a)];
  await new Promise((r) => setTimeout(r, 500)); // both admitted and reading

  const thirdForA = await held(a).answered;
  expect(thirdForA.status).toBe(429);
  expect(thirdForA.head).toMatch(/^retry-after: \d+$/im);
  expect(JSON.parse(thirdForA.body)).toMatchObject({ error_code: 'RATE_LIMITED', scope: 'account', retry_after: expect.any(Number), request_id: expect.any(String) });

  inFlight.push(held(b)); // another account: its own slot, the process's third
  await new Promise((r) => setTimeout(r, 500));
  const fourth = await held(b).answered;
  expect(fourth.status).toBe(429);
  expect(JSON.parse(fourth.body)).toMatchObject({ error_code: 'RATE_LIMITED', scope: 'capacity' });

  // The held requests finish (their signature is wrong: 401) and free their slots.
  for (const h of inFlight) h.sendAll();
  for (const answer of await Promise.all(inFlight.map((h) => h.answered))) expect(answer.status).toBe(401);
  const again = held(a);
  again.sendAll();
  expect((await again.answered).status).toBe(401);
});

it('answers 429 with the error object to an address past its budget per minute', async () => {
  const limited = await startTestApi({ inbound: { ...CAPS, maxPerAddressPerMinute: 3 }, api: { ...loadConfig(process.env).api, trustedProxyHops: 1 } });
  try {
    const address = someAddress();
    const post = (forwardedFor: string) =>
      limited.request('/api/v1/whatsapp/webhook', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': `sha256=${'b'.repeat(64)}`, 'X-Forwarded-For': forwardedFor },
        body: JSON.stringify({ object: 'whatsapp_business_account', entry: [] }),
      });
    for (let i = 0; i < 3; i++) expect((await post(address)).status).not.toBe(429);
    const refused = await post(address);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body).toMatchObject({ scope: 'address', retry_after: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not concerned.
    expect((await post(someAddress())).status).not.toBe(429);
  } finally {
    await limited.close();
  }
});
