import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import runnerLib = require('../../../scripts/lib/process-runner.cjs');

const { ProcessRunner, waitForLine, pinoMsg, formatLine, isProcessAlive } = runnerLib;

/** A node child running `source`; its output is captured in `output`, not printed. */
function startNode(runner: InstanceType<typeof ProcessRunner>, name: string, source: string) {
  return runner.start(name, process.execPath, ['-e', source], { echo: false });
}

function quietRunner(graceMs = 5_000) {
  const output: string[] = [];
  return { runner: new ProcessRunner({ log: (text) => output.push(text), graceMs, colors: false }), output };
}

describe('ProcessRunner.stopAll', () => {
  it('stops a child and the grandchild it spawned', async () => {
    const { runner } = quietRunner();
    const child = startNode(
      runner,
      'parent',
      `const g = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
       console.log('grandchild ' + g.pid);
       setInterval(() => {}, 1000);`,
    );
    const line = await waitForLine(child, (l) => l.startsWith('grandchild '), 10_000);
    const grandchildPid = Number(line.split(' ')[1]);
    expect(isProcessAlive(child.pid)).toBe(true);
    expect(isProcessAlive(grandchildPid)).toBe(true);

    await runner.stopAll();

    expect(child.exitInfo).toEqual({ code: null, signal: 'SIGTERM', error: null });
    expect(isProcessAlive(child.pid)).toBe(false);
    expect(isProcessAlive(grandchildPid)).toBe(false);
  });

  it('sends SIGKILL to a child that ignores SIGTERM once the grace period is over', async () => {
    const { runner, output } = quietRunner(300);
    const child = startNode(runner, 'stubborn', `process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000);`);
    await waitForLine(child, (l) => l === 'up', 10_000);
    const before = Date.now();

    await runner.stopAll();

    expect(child.exitInfo?.signal).toBe('SIGKILL');
    expect(Date.now() - before).toBeGreaterThanOrEqual(300);
    expect(output).toContain('stubborn: still running 300 ms after SIGTERM, sending SIGKILL');
  });

  it('stops children in reverse start order, registered resources included', async () => {
    const { runner } = quietRunner();
    const order: string[] = [];
    runner.register('database', async () => void order.push('database'));
    const child = startNode(runner, 'api', `console.log('up'); setInterval(() => {}, 1000);`);
    await waitForLine(child, (l) => l === 'up', 10_000);
    void child.exited.then(() => order.push('api'));

    await runner.stopAll();

    expect(order).toEqual(['api', 'database']);
  });
});

describe('waitForLine', () => {
  it('times out with the child name, the wait and its last output', async () => {
    const { runner } = quietRunner();
    const child = startNode(runner, 'silent', `console.log('hello'); setInterval(() => {}, 1000);`);
    await waitForLine(child, (l) => l === 'hello', 10_000);
    try {
      await expect(waitForLine(child, (l) => l === 'never', 300, '"never"')).rejects.toThrow('silent did not print "never" within 300 ms; last output:\n  hello');
    } finally {
      await runner.stopAll();
    }
  });

  it('rejects as soon as the child exits, with its exit code and output', async () => {
    const { runner } = quietRunner();
    const child = startNode(runner, 'crasher', `console.error('boom'); process.exit(3);`);
    await expect(waitForLine(child, pinoMsg('worker ready'), 10_000, '"worker ready"')).rejects.toThrow(
      'crasher exited (code 3) before printing "worker ready"; last output:\n  boom',
    );
    await runner.stopAll();
  });

  it('matches a line printed before the call', async () => {
    const { runner } = quietRunner();
    const child = startNode(runner, 'early', `console.log(JSON.stringify({ level: 30, msg: 'api listening' }));`);
    await child.closed;
    await expect(waitForLine(child, pinoMsg('api listening'), 100)).resolves.toBe('{"level":30,"msg":"api listening"}');
    await runner.stopAll();
  });
});

describe('pino lines', () => {
  it('pinoMsg matches the exact msg of a JSON line only', () => {
    const ready = pinoMsg('worker ready');
    expect(ready('{"level":30,"msg":"worker ready"}')).toBe(true);
    expect(ready('{"level":30,"msg":"worker ready soon"}')).toBe(false);
    expect(ready('worker ready')).toBe(false);
  });

  it('formatLine shows time, level, msg, the other fields and the error stack', () => {
    const err = { type: 'Error', message: 'connect ECONNREFUSED', stack: 'Error: connect ECONNREFUSED\n    at connect (net.js:1:1)', code: 'ECONNREFUSED' };
    const line = JSON.stringify({ level: 50, time: 1_700_000_000_000, pid: 7, hostname: 'h', msg: 'worker failed', taskQueue: 'q', n: 2, err });
    const [first, ...rest] = formatLine(line).split('\n');
    expect(first).toBe('[22:13:20.000] ERROR: worker failed {"taskQueue":"q","n":2}');
    expect(rest.join('\n')).toContain('Error: connect ECONNREFUSED\n              at connect (net.js:1:1)');
    expect(rest.join('\n')).toContain('"code": "ECONNREFUSED"');
    expect(formatLine('plain text')).toBe('plain text');
    expect(formatLine('{"not":"a pino line"}')).toBe('{"not":"a pino line"}');
  });

  it('formatLine colours only when asked to (a TTY without NO_COLOR) and strips escapes from the line', () => {
    const line = JSON.stringify({ level: 40, time: 1_700_000_000_000, msg: 'disk \u001b[2Jfull' });
    expect(formatLine(line)).toBe('[22:13:20.000] WARN: disk [2Jfull');
    expect(formatLine(line, { colors: true })).toBe('[22:13:20.000] \u001b[33mWARN\u001b[39m: \u001b[36mdisk [2Jfull\u001b[39m');
  });

  it('formatLine prints the line as it is where pino-pretty is not installed (up.mjs before npm ci)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-'));
    try {
      const copy = path.join(dir, 'process-runner.cjs');
      fs.copyFileSync(require.resolve('../../../scripts/lib/process-runner.cjs'), copy);
      const line = JSON.stringify({ level: 30, time: 1_700_000_000_000, msg: 'worker ready' });
      const source = `process.stdout.write(require(${JSON.stringify(copy)}).formatLine(${JSON.stringify(line)}))`;
      expect(execFileSync(process.execPath, ['-e', source], { cwd: dir, encoding: 'utf8' })).toBe(line);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
