import supervisorLib = require('../../../scripts/lib/supervisor.cjs');

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
