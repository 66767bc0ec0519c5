/**
 * The worker's heap is fixed by two V8 flags (scripts/lib/worker-node-flags.cjs says why): every
 * way of starting it must pass them, and Node must size the heap of the worker and of its
 * workflow threads by them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { WORKER_NODE_FLAGS } from '../../../scripts/lib/worker-node-flags.cjs';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const MAIN = 'dist/workers/main.js';

describe("the worker's V8 flags", () => {
  it('are passed by package.json, docker-compose.yml and the Kubernetes Deployment', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['start:worker']).toBe(['node', ...WORKER_NODE_FLAGS, MAIN].join(' '));

    const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { command?: string[] }> };
    expect(compose.services.worker?.command).toEqual(['node', ...WORKER_NODE_FLAGS, MAIN]);

    const [deployment] = parseAllDocuments(read('deploy/k8s/base/worker-deployment.yaml')).map((doc) => doc.toJS());
    const container = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'worker');
    expect(container.command).toEqual(['node', ...WORKER_NODE_FLAGS, MAIN]);
  });

  it('are passed by the scripts that start the worker (npm run up, npm run dev, the test and bench stacks)', () => {
    for (const file of ['scripts/up.mjs', 'scripts/dev.mjs', 'scripts/lib/ephemeral-stack.cjs']) {
      const starts = read(file)
        .split('\n')
        .filter((line) => line.includes(MAIN) && /\bstart\(/.test(line));
      expect({ file, starts: starts.length }).toEqual({ file, starts: 1 });
      expect({ file, start: starts[0] }).toEqual({ file, start: expect.stringContaining('WORKER_NODE_FLAGS') });
    }
  });

  it('size the heap of the process and of its worker threads (16 MiB semi-spaces: 3 x 16 MiB beside the old space)', () => {
    const oldSpaceMiB = Number(/^--max-old-space-size=(\d+)$/.exec(WORKER_NODE_FLAGS.find((f) => f.startsWith('--max-old-space-size='))!)![1]);
    const script = `
      const { Worker } = require('node:worker_threads');
      const limit = () => require('node:v8').getHeapStatistics().heap_size_limit / 1048576;
      const thread = new Worker("require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapStatistics().heap_size_limit / 1048576)", { eval: true });
      thread.once('message', (t) => { console.log(JSON.stringify({ main: limit(), thread: t })); thread.terminate(); });`;
    const run = spawnSync(process.execPath, [...WORKER_NODE_FLAGS, '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ main: oldSpaceMiB + 3 * 16, thread: oldSpaceMiB + 3 * 16 });
  });
});
