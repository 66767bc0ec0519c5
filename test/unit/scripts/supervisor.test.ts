import net from 'node:net';
import supervisorLib = require('../../../scripts/lib/supervisor.cjs');
import runnerLib = require('../../../scripts/lib/process-runner.cjs');
import { until } from '../../support/until';

const { superviseProcess } = supervisorLib;

/** A child whose exit the test decides. */
function fakeChild() {
  let exit!: (info: { code: number | null; signal: string | null }) => void;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => (exit = resolve));
  return { exited, exit };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('superviseProcess (npm run up keeps the API and the worker running)', () => {
  it('restarts a process that dies, with a growing delay that resets after a stable run, and logs it loudly', async () => {
    const children = [fakeChild()];
    const delays: number[] = [];
    const lines: string[] = [];
    let clock = 0;
    const supervisor = superviseProcess(
      {
        name: 'api',
        start: () => {
          children.push(fakeChild());
          return children[children.length - 1];
        },
        isStopping: () => false,
        log: (line) => lines.push(line),
        sleep: async (ms) => {
          delays.push(ms);
        },
        now: () => clock,
      },
      children[0],
    );
    for (let i = 0; i < 3; i++) {
      children[children.length - 1].exit({ code: 1, signal: null });
      await flush();
      await flush();
    }
    expect(delays).toEqual([1000, 2000, 4000]);
    expect(supervisor.restarts()).toBe(3);
    expect(lines[0]).toBe('✗ api exited unexpectedly (code 1); restarting it in 1 s (restart 1)');
    // A run that lasted a minute starts the delays over.
    clock += 61_000;
    children[children.length - 1].exit({ code: null, signal: 'SIGKILL' });
    await flush();
    await flush();
    expect(delays).toEqual([1000, 2000, 4000, 1000]);
    expect(lines[3]).toContain('signal SIGKILL');
  });

  it('does not restart while the stack is stopping (Ctrl-C)', async () => {
    const first = fakeChild();
    let started = 0;
    superviseProcess({ name: 'worker', start: () => (started++, fakeChild()), isStopping: () => true, log: () => undefined, sleep: async () => undefined }, first);
    first.exit({ code: 0, signal: null });
    await flush();
    expect(started).toBe(0);
  });
});

describe('superviseProcess with a liveness probe (a process whose event loop is stuck)', () => {
  jest.setTimeout(30_000);

  /** A real child serving /livez on `port`; a POST to /block blocks its event loop for good. */
  const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  if (req.url === '/block') { res.end('blocking'); setImmediate(() => { for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000); }); return; }
  res.end('ok');
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening ' + process.pid));
`;

  async function freePort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  const livez = (port: number) =>
    fetch(`http://127.0.0.1:${port}/livez`, { signal: AbortSignal.timeout(500) }).then(
      (res) => res.ok,
      () => false,
    );

  it('kills the hung process after the probes fail in a row and starts a fresh one, which answers', async () => {
    const port = await freePort();
    const lines: string[] = [];
    let stopping = false;
    const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 2_000, colors: false });
    const start = () => runner.start('hung', process.execPath, ['-e', SERVER], { env: { ...process.env, PORT: String(port) }, echo: false });
    try {
      const first = start();
      await runnerLib.waitForLine(first, (line) => line.startsWith('listening'), 10_000);
      const supervisor = superviseProcess(
        {
          name: 'api',
          start,
          isStopping: () => stopping,
          log: (line) => lines.push(line),
          liveness: { url: `http://127.0.0.1:${port}/livez`, intervalMs: 200, timeoutMs: 300, failures: 3 },
        },
        first,
      );
      await until(() => livez(port), Boolean, 'the first process to answer', 10_000);
      // Answered at least once by now (probes every 200 ms): then its loop stops for good.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await fetch(`http://127.0.0.1:${port}/block`);
      await until(async () => supervisor.restarts() === 1 && (await livez(port)), Boolean, 'a fresh process answering', 20_000);

      expect(supervisor.replacedHung()).toBe(1);
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL', error: null });
      const fresh = runner.runningChildren().find((c) => c.name === 'hung')!;
      expect(fresh.pid).not.toBe(first.pid);
      expect(lines).toEqual([
        `✗ api stopped answering http://127.0.0.1:${port}/livez (3 probes in a row, 0.3 s each); replacing it`,
        '✗ api exited unexpectedly (signal SIGKILL); restarting it in 1 s (restart 1)',
      ]);
    } finally {
      stopping = true;
      await runner.stopAll();
    }
  });

  it('does not judge a process that has not answered yet (still starting)', async () => {
    const port = await freePort();
    const lines: string[] = [];
    let stopping = false;
    const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 2_000, colors: false });
    // Never listens: as a worker bundling its workflows for a while.
    const child = runner.start('starting', process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { echo: false });
    try {
      const supervisor = superviseProcess(
        {
          name: 'worker',
          start: () => child,
          isStopping: () => stopping,
          log: (line) => lines.push(line),
          liveness: { url: `http://127.0.0.1:${port}/livez`, intervalMs: 100, timeoutMs: 100, failures: 2 },
        },
        child,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(supervisor.replacedHung()).toBe(0);
      expect(child.running).toBe(true);
      expect(lines).toEqual([]);
    } finally {
      stopping = true;
      await runner.stopAll();
    }
  });
});
