/**
 * PDF text and page images for tests (trusted PDFs: the service's own reports and fixtures), with
 * pdf-parse v2 in a child Node process, since pdf.js loads its worker with a dynamic import that
 * Jest's module sandbox refuses without --experimental-vm-modules.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const TEXT_SCRIPT = `
const { PDFParse } = require('pdf-parse');
const fs = require('node:fs');
(async () => {
  const parser = new PDFParse({ data: fs.readFileSync(process.argv[1]) });
  try {
    process.stdout.write((await parser.getText()).text);
  } finally {
    await parser.destroy();
  }
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** The PDF's text as the service's extraction reads it (page markers removed). */
export function pdfText(pdf: Buffer): Promise<string> {
  return withTemp(pdf, async (input) => {
    const { stdout } = await run(process.execPath, ['-e', TEXT_SCRIPT, input], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    return stdout.replace(/(?<!\n)\n*-- \d+ of \d+ --\n*/g, '\n').replace(/(?<!\s)\s+$/, '\n');
  });
}

const SCRIPT = `
const { PDFParse } = require('pdf-parse');
const fs = require('node:fs');
(async () => {
  const [input, output, page] = process.argv.slice(1);
  const parser = new PDFParse({ data: fs.readFileSync(input) });
  try {
    const shot = await parser.getScreenshot({ partial: [Number(page)], scale: 1.6, imageDataUrl: false });
    fs.writeFileSync(output, Buffer.from(shot.pages[0].data));
  } finally {
    await parser.destroy();
  }
})().catch((err) => { console.error(err); process.exit(1); });
`;

async function withTemp<T>(bytes: Buffer, work: (input: string, output: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-'));
  try {
    const input = path.join(dir, 'in.pdf');
    fs.writeFileSync(input, bytes);
    return await work(input, path.join(dir, 'out'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const root = path.resolve(__dirname, '..', '..');

/** One page (1-based) rendered to PNG bytes. */
export function pdfPagePng(bytes: Buffer, page: number): Promise<Buffer> {
  return withTemp(bytes, async (input, output) => {
    await run(process.execPath, ['-e', SCRIPT, input, output, String(page)], { cwd: root });
    return fs.readFileSync(output);
  });
}
