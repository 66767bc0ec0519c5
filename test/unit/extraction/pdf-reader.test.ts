/**
 * The worker's PDF reader: at most `inFlight` parsing threads at once (the others wait their turn),
 * and a PDF that needs more than the thread's heap fails with a reason that says so, the process
 * going on.
 */
import { createPdfReader, PdfTextError } from '../../../activities/extraction/pdf-text';
import { invoicePdf } from '../../fixtures/extraction/pdf';

jest.setTimeout(120_000);

const logPdf = (lines: number) => invoicePdf(Array.from({ length: lines }, (_, i) => `Line ${i + 1} of the maintenance log`).join('\n'));

it('parses at most inFlight PDFs at once; the others wait their turn', async () => {
  const reader = createPdfReader({ maxHeapMb: 256, inFlight: 1 });
  const pdf = await logPdf(40);
  let most = 0;
  const watch = setInterval(() => (most = Math.max(most, reader.threads())), 2);
  try {
    const texts = await Promise.all([reader.text(pdf), reader.text(pdf), reader.text(pdf)]);
    for (const text of texts) expect(text).toContain('Line 40 of the maintenance log');
  } finally {
    clearInterval(watch);
  }
  expect(most).toBe(1);
  expect(reader.threads()).toBe(0);
});

it('fails a PDF that needs more than the heap limit with a clear reason, and reads the next one', async () => {
  const small = createPdfReader({ maxHeapMb: 8, inFlight: 1 });
  const pdf = await logPdf(3_000);
  const failure = await small.text(pdf).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(PdfTextError);
  expect((failure as Error).message).toBe('the PDF needs more than 8 MiB of memory to read, the extraction limit');
  expect(small.threads()).toBe(0);
  // The process is fine: the same document within a sufficient limit.
  expect(await createPdfReader({ maxHeapMb: 256, inFlight: 1 }).text(pdf)).toContain('Line 3000 of the maintenance log');
});
