/**
 * A sandbox child (infra/sandbox/pool.ts starts it under an OS memory ceiling): runs one content
 * task at a time from the IPC channel and answers its result or why it failed. Whatever a parser
 * does wrong ends here: an exception thrown from a callback (png-js inside zlib's) fails the task
 * and the process, an allocation the ceiling refuses fails the task as `memory`, an endless loop
 * is the parent's timeout. The parent replaces the process after any failure.
 */
import fs from 'node:fs';
import type { ChildFailure, TaskKind, TaskReply, TaskRequest } from './protocol';
import { InflationError } from './tasks/pdf-inflation';
import { logoImageTask } from './tasks/logo-image';
import { pdfTextTask } from './tasks/pdf-text';
import { renderReportTask } from './tasks/render-report';

const TASKS: { [K in TaskKind]: (input: TaskRequest<K>['input']) => Promise<unknown> } = {
  'pdf-text': pdfTextTask,
  'render-report': renderReportTask,
  'logo-image': logoImageTask,
};

/** The data segment (what RLIMIT_DATA counts), in KiB. */
function vmDataKiB(): number {
  const match = /^VmData:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : 0;
}

const send = (reply: TaskReply) => process.send?.(reply);

function failureOf(err: unknown): { failure: ChildFailure; detail: string } {
  if (err instanceof InflationError) return { failure: 'inflation', detail: err.message };
  const error = err instanceof Error ? err : new Error(String(err));
  if (/allocation failed|out of memory|cannot allocate|memory allocation/i.test(error.message)) return { failure: 'memory', detail: 'an allocation was refused' };
  // The parser's own first line (pdf.js's "Invalid PDF structure.", libvips's "Input image exceeds pixel limit"): printable, bounded.
  const line = error.message
    .split('\n')[0]!
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 160);
  return { failure: 'invalid', detail: line || error.name };
}

let current: number | null = null;

process.on('uncaughtException', (err) => {
  if (current !== null) send({ id: current, ok: false, ...failureOf(err) });
  process.exit(70);
});
process.on('unhandledRejection', (err) => {
  if (current !== null) send({ id: current, ok: false, ...failureOf(err) });
  process.exit(70);
});
// The parent is gone: so is the reason to live.
process.on('disconnect', () => process.exit(0));

process.on('message', (request: TaskRequest) => {
  current = request.id;
  const task = TASKS[request.kind] as (input: unknown) => Promise<unknown>;
  task(request.input).then(
    (output) => {
      current = null;
      send({ id: request.id, ok: true, output });
    },
    (err: unknown) => {
      current = null;
      send({ id: request.id, ok: false, ...failureOf(err) });
    },
  );
});

/* eslint-disable @typescript-eslint/no-require-imports */
/** What each kind of task loads: loaded before the ready line, so that the footprint the pool calibrates on (and adds its budget to) already holds it. */
const MODULES: { [K in TaskKind]: () => void } = {
  // pdf-parse loads @napi-rs/canvas, whose allocator reserves 1 GiB of address space up front.
  'pdf-text': () => void require('pdf-parse'),
  'render-report': () => void [require('../reports/pdf'), require('../reports/xlsx')],
  'logo-image': () => void require('sharp'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

const kindsArg = process.argv.find((arg) => arg.startsWith('--kinds='));
for (const kind of (kindsArg?.slice('--kinds='.length) ?? '').split(',')) if (kind in MODULES) MODULES[kind as TaskKind]();
send({ ready: true, vmDataKiB: vmDataKiB() });
// Calibration only measures the footprint: with the modules loaded, it is done.
if (process.argv.includes('--calibrate')) process.disconnect();
