/**
 * A PDF's text through pdf-parse (v2, maintained; pdf.js underneath), parsed in a worker thread:
 * pdf.js is CPU-bound and would otherwise block the activity worker's event loop (heartbeats, other
 * activities), a hostile PDF is bounded by the thread's heap limit and a timeout, and the thread is
 * real Node (pdf.js loads its own worker with a dynamic import that Jest's module sandbox refuses).
 * A reader (`createPdfReader`) also bounds how many threads parse at once in the process, so a
 * burst of large PDFs cannot take the worker's memory: each costs up to its heap limit.
 * Page markers pdf-parse adds ("-- 1 of 3 --") are removed so they never look like content.
 */
import { Worker } from 'node:worker_threads';
import { BoundedGate } from '../../infra/bounded-gate';
import type { PdfLimitsConfig } from '../../infra/config';

export class PdfTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfTextError';
  }
}

const PARSE_IN_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFParse } = require(workerData.module);
(async () => {
  const parser = new PDFParse({ data: new Uint8Array(workerData.data) });
  try {
    const result = await parser.getText();
    parentPort.postMessage({ ok: true, text: result.text });
  } catch (err) {
    parentPort.postMessage({ ok: false, name: err && err.name });
  } finally {
    await parser.destroy();
  }
})();
`;

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_HEAP_MB = 512;

/** Why a thread failed, in words a job's error can show (no document content). */
function threadFailure(err: Error & { code?: string }, maxHeapMb: number): PdfTextError {
  if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') return new PdfTextError(`the PDF needs more than ${maxHeapMb} MiB of memory to read, the extraction limit`);
  return new PdfTextError(`the PDF could not be read (${err.name})`);
}

/** One PDF's text in a thread of its own. `onThread` hears when the thread starts and when it is gone. */
export function pdfText(data: Buffer, options: { timeoutMs?: number; maxHeapMb?: number; onThread?: (event: 'start' | 'exit') => void } = {}): Promise<string> {
  const maxHeapMb = options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB;
  return new Promise((resolve, reject) => {
    const worker = new Worker(PARSE_IN_THREAD, {
      eval: true,
      workerData: { module: require.resolve('pdf-parse'), data },
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    });
    options.onThread?.('start');
    // The outcome is settled when the thread is gone, so a reader's slot covers the thread's whole life.
    let outcome: (() => void) | null = null;
    const settle = (fn: () => void) => {
      if (outcome) return;
      outcome = fn;
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new PdfTextError('PDF text extraction timed out'))), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    worker.once('message', (msg: { ok: true; text: string } | { ok: false; name?: string }) =>
      settle(() =>
        msg.ok
          ? resolve(msg.text.replace(/(?<!\n)\n*-- \d+ of \d+ --\n*/g, '\n').replace(/(?<!\s)\s+$/, '\n'))
          : reject(new PdfTextError(`the PDF could not be read (${msg.name ?? 'error'})`)),
      ),
    );
    worker.once('error', (err) => settle(() => reject(threadFailure(err, maxHeapMb))));
    worker.once('exit', (code) => {
      clearTimeout(timer);
      options.onThread?.('exit');
      (outcome ?? (() => reject(new PdfTextError(`PDF reader stopped (exit ${code})`))))();
    });
  });
}

export interface PdfReader {
  /** The PDF's text, once a parsing slot is free. */
  text(data: Buffer): Promise<string>;
  /** Parsing threads alive now. */
  threads(): number;
}

/** A process's PDF parsing: at most `inFlight` threads at once, each within `maxHeapMb`. */
export function createPdfReader(limits: PdfLimitsConfig & { timeoutMs?: number }): PdfReader {
  // Waiting turns are bounded by the worker's activity slots, not here.
  const gate = new BoundedGate(limits.inFlight, Number.MAX_SAFE_INTEGER);
  let alive = 0;
  const onThread = (event: 'start' | 'exit') => (alive += event === 'start' ? 1 : -1);
  return {
    async text(data) {
      return (await gate.run(() => pdfText(data, { maxHeapMb: limits.maxHeapMb, timeoutMs: limits.timeoutMs, onThread })))!;
    },
    threads: () => alive,
  };
}
