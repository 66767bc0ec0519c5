/**
 * A PDF's text through pdf-parse (v2, maintained; pdf.js underneath), parsed in a worker thread:
 * pdf.js is CPU-bound and would otherwise block the activity worker's event loop (heartbeats, other
 * activities), a hostile PDF is bounded by the thread's heap limit and a timeout, and the thread is
 * real Node (pdf.js loads its own worker with a dynamic import that Jest's module sandbox refuses).
 * Page markers pdf-parse adds ("-- 1 of 3 --") are removed so they never look like content.
 */
import { Worker } from 'node:worker_threads';

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

export function pdfText(data: Buffer, options: { timeoutMs?: number; maxHeapMb?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(PARSE_IN_THREAD, {
      eval: true,
      workerData: { module: require.resolve('pdf-parse'), data },
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 512 },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new PdfTextError('PDF text extraction timed out'));
    }, options.timeoutMs ?? 120_000);
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    worker.once('message', (msg: { ok: true; text: string } | { ok: false; name?: string }) =>
      finish(() =>
        msg.ok ? resolve(msg.text.replace(/\n*-- \d+ of \d+ --\n*/g, '\n').replace(/\s+$/, '\n')) : reject(new PdfTextError(`the PDF could not be read (${msg.name ?? 'error'})`)),
      ),
    );
    worker.once('error', (err) => finish(() => reject(new PdfTextError(`the PDF could not be read (${err.name})`))));
    worker.once('exit', (code) => finish(() => reject(new PdfTextError(`PDF reader stopped (exit ${code})`))));
  });
}
