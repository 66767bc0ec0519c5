/**
 * The content sandbox on real child processes (the compiled child from dist/: `npm run build`
 * first). The three PNG shapes that ended, exhausted or froze a shared process through pdfkit's
 * png-js are handed straight to the report renderer, as an unvalidated logo would be: each fails
 * its task with its reason (a crash, the memory ceiling, the time limit), the process that asked
 * is untouched, and the next task gets a fresh child.
 */
import fs from 'node:fs';
import { SandboxPool, defaultChildScript } from '../../../infra/sandbox/pool';
import { ContentError, SandboxUnavailableError, type TaskInput } from '../../../infra/sandbox/protocol';
import { until } from '../../support/until';
import { DEFAULT_BRANDING } from '../../../infra/reports/branding';
import { PDF_INFLATION } from '../../../infra/sandbox/limits';
import { TenantCapacityError } from '../../../infra/tenant-limiter';
import { pngIdatNotZlib, pngNegativeChunkLength, pngPixelBomb, validPng } from '../../support/hostile-corpus/images';
import { pdfChainedFlateBomb, pdfFlateBomb, pdfWithText } from '../../support/hostile-corpus/pdf';
import { rssMiB, threadNiceValues } from '../../support/hostile-probe';
import { BACKGROUND_NICE } from '../../../infra/background-priority';
import { createMetricsRegistry } from '../../../infra/metrics';

jest.setTimeout(180_000);

const BUDGET_MIB = 96;
let pool: SandboxPool;
/** The same without the RSS watchdog: only the OS ceiling stands. */
let ceilingOnly: SandboxPool;

const options = (name: string) => ({
  name,
  processes: 2,
  kinds: ['pdf-text', 'render-report', 'logo-image'] as const,
  memoryMiB: BUDGET_MIB,
  maxQueued: 4,
  tenant: { maxInFlight: 1, maxWaiting: 0, maxWaitMs: 0 },
});

beforeAll(() => {
  if (!fs.existsSync(defaultChildScript())) throw new Error(`${defaultChildScript()} is missing: run npm run build first`);
  pool = new SandboxPool(options('unit'));
  ceilingOnly = new SandboxPool({ ...options('unit-ceiling'), watchRss: false });
});
afterAll(() => {
  pool?.close();
  ceilingOnly?.close();
});

const report = (logo: Buffer): TaskInput<'render-report'> => ({
  format: 'pdf',
  document: { title: 'Logo', subtitle: 'x', generatedAt: new Date('2026-01-01T00:00:00Z'), keyFigures: [], sections: [] },
  branding: { ...DEFAULT_BRANDING, logo: { bytes: logo, contentType: 'image/png' } },
});
const render = (logo: Buffer, timeoutMs = 20_000) => pool.run(`t-${Math.random()}`, 'render-report', report(logo), { subject: 'the report', timeoutMs });
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => err,
  );

it("renders a report with a valid logo in a child below the event loop's priority, and reuses its child", async () => {
  const first = await render(validPng());
  expect(Buffer.from(first.bytes).subarray(0, 5).toString()).toBe('%PDF-');
  const pids = pool.stats().pids;
  for (const pid of pids) expect(new Set(threadNiceValues(pid).values())).toEqual(new Set([BACKGROUND_NICE]));
  await render(validPng());
  expect(pool.stats().pids).toEqual(pids);
});

it('an 85-byte PNG whose IDAT is not zlib data fails the render, not the process', async () => {
  const own = rssMiB(process.pid)!;
  const failure = await failureOf(render(pngIdatNotZlib()));
  expect(failure).toBeInstanceOf(ContentError);
  expect((failure as ContentError).failure).toBe('invalid');
  expect((failure as ContentError).message).toMatch(/^the report could not be read: /);
  expect(rssMiB(process.pid)! - own).toBeLessThan(64);
});

it('a PNG declaring 16 000 x 16 000 pixels hits the memory ceiling the OS enforces (no watchdog)', async () => {
  const failure = await failureOf(ceilingOnly.run('t-bomb', 'render-report', report(pngPixelBomb()), { subject: 'the report', timeoutMs: 60_000 }));
  expect(failure).toBeInstanceOf(ContentError);
  expect((failure as ContentError).failure).toBe('memory');
  expect((failure as ContentError).message).toBe(`the report needs more than ${BUDGET_MIB} MiB of memory to process, the limit for uploaded content`);
  expect(ceilingOnly.stats().replaced).toBe(1);
});

it('the RSS watchdog stops the same bomb as a second line', async () => {
  expect(await failureOf(render(pngPixelBomb()))).toMatchObject({ failure: 'memory' });
});

it('a PNG whose chunk length reads negative loops until the time limit ends its child', async () => {
  const started = Date.now();
  const failure = await failureOf(render(pngNegativeChunkLength(), 3_000));
  expect(failure).toMatchObject({ failure: 'timeout' });
  expect((failure as Error).message).toBe('the report took longer than 3 s to process, the limit for uploaded content');
  expect(Date.now() - started).toBeLessThan(15_000);
  // The next task has a fresh child and succeeds.
  await expect(render(validPng())).resolves.toBeTruthy();
});

it('PDF text: a flate bomb is refused by the inflation cap, a chained one by the memory ceiling, a real PDF is read', async () => {
  const read = (pdf: Buffer) => pool.run('t-pdf', 'pdf-text', { data: pdf, limits: PDF_INFLATION }, { subject: 'the PDF', timeoutMs: 60_000 });
  const bomb = await failureOf(read(pdfFlateBomb()));
  expect(bomb).toMatchObject({ failure: 'inflation' });
  expect((bomb as Error).message).toBe('the PDF inflates to more than 256 MiB, the limit for uploaded content');
  expect(await failureOf(read(pdfChainedFlateBomb()))).toMatchObject({ failure: 'memory' });
  expect((await read(pdfWithText('Invoice 42'))).text).toContain('Invoice 42');
});

it("holds a tenant to its share: a second task of the same tenant is refused while the first runs, another tenant's runs", async () => {
  const slow = failureOf(pool.run('busy', 'render-report', report(pngNegativeChunkLength()), { subject: 'the report', timeoutMs: 3_000 }));
  const second = await failureOf(pool.run('busy', 'render-report', report(validPng()), { subject: 'the report', timeoutMs: 20_000 }));
  expect(second).toBeInstanceOf(TenantCapacityError);
  await expect(render(validPng())).resolves.toBeTruthy();
  expect(await slow).toMatchObject({ failure: 'timeout' });
});

it('a task waits for a free process no longer than its own time limit, then fails as busy and leaves the queue', async () => {
  const loops = ['busy-a', 'busy-b'].map((tenant) => failureOf(pool.run(tenant, 'render-report', report(pngNegativeChunkLength()), { subject: 'the report', timeoutMs: 4_000 })));
  await until(
    async () => pool.stats().busy,
    (busy) => busy === 2,
    'both processes busy',
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  const waited = await failureOf(pool.run('patient', 'render-report', report(validPng()), { subject: 'the report', timeoutMs: 500 }));
  expect(waited).toBeInstanceOf(SandboxUnavailableError);
  expect(pool.stats().queued).toBe(0);
  for (const loop of await Promise.all(loops)) expect(loop).toMatchObject({ failure: 'timeout' });
});

it('reports its processes and the processes it replaced in /metrics', async () => {
  const text = await createMetricsRegistry().metrics();
  expect(text).toMatch(/^content_sandbox_replaced\{pool="unit"\} [1-9]\d*$/m);
  expect(text).toMatch(/^content_sandbox_processes\{pool="unit"\} \d+$/m);
  expect(text).toMatch(/^tenant_outbound_calls_refused\{pool="content-unit"\} [1-9]\d*$/m);
});
