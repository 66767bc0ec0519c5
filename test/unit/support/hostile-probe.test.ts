/**
 * The hostile corpus's harness must see what it is there to see: a process whose event loop stops
 * turning, a process that dies, memory that grows, and another tenant kept waiting. Each case runs
 * a real child process serving /livez on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { containmentFailures, underHostileLoad, type WatchedProcess } from '../../support/hostile-probe';

jest.setTimeout(30_000);

/** A child serving /livez; a POST to /block blocks its loop for ?ms, /grow keeps ?mib MiB, /exit ends it. */
const SERVER = `
const http = require('node:http');
const kept = [];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const n = Number(url.searchParams.get('n') || 0);
  if (url.pathname === '/block') { res.end('ok'); const end = Date.now() + n; while (Date.now() < end); return; }
  if (url.pathname === '/grow') { kept.push(Buffer.alloc(n << 20, 1)); return res.end('ok'); }
  if (url.pathname === '/exit') { res.end('ok'); setTimeout(() => process.exit(3), 10); return; }
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startChild(): Promise<{ child: ChildProcess; watched: WatchedProcess; origin: string }> {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const origin = `http://127.0.0.1:${chunk.toString().trim()}`;
  return { child, origin, watched: { name: 'child', pid: child.pid!, livezUrl: `${origin}/livez` } };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function watchedChild() {
  const started = await startChild();
  children.push(started.child);
  return started;
}

test('a process that answers promptly, stays and keeps its memory is contained', async () => {
  const { watched } = await watchedChild();
  const report = await underHostileLoad({ watched: [watched], otherTenant: async () => 200, intervalMs: 50 }, () => new Promise((resolve) => setTimeout(resolve, 500)));
  expect(containmentFailures(report, { rssMiB: { child: 500 } })).toEqual([]);
  expect(report.processes[0]!.probes).toBeGreaterThan(3);
});

test('a stopped event loop, grown memory and a waiting tenant are each reported', async () => {
  const { watched, origin } = await watchedChild();
  const report = await underHostileLoad({ watched: [watched], otherTenant: () => new Promise((resolve) => setTimeout(() => resolve(503), 300)), intervalMs: 50 }, async () => {
    await fetch(`${origin}/grow?n=64`).then((res) => res.text());
    await fetch(`${origin}/block?n=2500`).then((res) => res.text());
    await new Promise((resolve) => setTimeout(resolve, 2_600));
  });
  const failures = containmentFailures(report, { probeMs: 2_000, otherTenantMs: 200, rssMiB: { child: report.processes[0]!.baselineRssMiB + 32 } });
  expect(failures).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^child answered a liveness probe in \d+ ms \(bound 2000\)$/),
      expect.stringMatching(/^child reached \d+ MiB resident/),
      expect.stringMatching(/^the other tenant waited \d+ ms \(bound 200\)$/),
      expect.stringMatching(/^the other tenant got statuses 503/),
    ]),
  );
});

test('a process that dies during the attack is reported as not surviving', async () => {
  const { watched, origin, child } = await watchedChild();
  const report = await underHostileLoad({ watched: [watched], intervalMs: 50, probeTimeoutMs: 500 }, async () => {
    await fetch(`${origin}/exit`).then((res) => res.text());
    await once(child, 'exit');
  });
  expect(containmentFailures(report)).toEqual(
    expect.arrayContaining([`child (pid ${watched.pid}) did not survive the attack`, expect.stringMatching(/^child failed \d+ of \d+ liveness probes$/)]),
  );
});
