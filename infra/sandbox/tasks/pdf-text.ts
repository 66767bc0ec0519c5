/**
 * A PDF's text inside a sandbox child: the decompression caps first (pdf-inflation.ts), then
 * pdf-parse (v2, maintained; pdf.js underneath). Page markers pdf-parse adds ("-- 1 of 3 --") are
 * removed so they never look like content.
 */
import type { TaskInput, TaskOutput } from '../protocol';
import { checkPdfInflation } from './pdf-inflation';

export async function pdfTextTask(input: TaskInput<'pdf-text'>): Promise<TaskOutput<'pdf-text'>> {
  const data = Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength);
  await checkPdfInflation(data, input.limits);
  // Loaded on first use: a child that only renders reports never loads pdf.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PDFParse } = require('pdf-parse') as typeof import('pdf-parse');
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    const result = await parser.getText();
    return { text: result.text.replace(/(?<!\n)\n*-- \d+ of \d+ --\n*/g, '\n').replace(/(?<!\s)\s+$/, '\n') };
  } finally {
    await parser.destroy();
  }
}
