/**
 * Content work runs below the event loop's priority (infra/background-priority.ts): a thread that
 * lowers itself moves alone, a thread started from source text can do the same, and a command
 * started through backgroundCommand runs at BACKGROUND_NICE with every thread it starts.
 */
import { execFileSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICE, backgroundCommand, LOWER_THIS_THREAD_PRIORITY_JS } from '../../../infra/background-priority';
import { threadNiceValues } from '../../support/hostile-probe';

it('a thread started from source lowers itself to BACKGROUND_NICE and leaves the event loop where it was', async () => {
  const before = threadNiceValues(process.pid).get(process.pid);
  const worker = new Worker(
    `${LOWER_THIS_THREAD_PRIORITY_JS}
     const { parentPort } = require('node:worker_threads');
     parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
     setInterval(() => {}, 1000);`,
    { eval: true },
  );
  try {
    const tid = await new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    const nices = threadNiceValues(process.pid);
    expect(nices.get(tid)).toBe(BACKGROUND_NICE);
    expect(nices.get(process.pid)).toBe(before);
  } finally {
    await worker.terminate();
  }
});

it('a command started through backgroundCommand runs at BACKGROUND_NICE', () => {
  const [command, ...args] = backgroundCommand(['sh', '-c', 'cut -d " " -f 19 /proc/self/stat']);
  expect(Number(execFileSync(command, args, { encoding: 'utf8' }).trim())).toBe(BACKGROUND_NICE);
});
