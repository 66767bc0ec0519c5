/**
 * The decompression caps of a PDF, measured before the parser sees it: every FlateDecode stream is
 * inflated (natively, by zlib, counting and dropping the output, never holding it) and the totals
 * are held against the caps. pdf.js keeps what it inflates in memory, so a 1 MiB stream that
 * inflates to 1 GiB would otherwise be found out only by the memory ceiling; here it is refused by
 * name, in a second or so. Image XObjects are skipped (text extraction never decodes them). A
 * filter chain that does not start with FlateDecode is not measured: the memory ceiling stays the
 * backstop for it.
 */
import zlib from 'node:zlib';

export interface InflationLimits {
  /** Bytes all measured streams may inflate to, together. */
  maxInflatedBytes: number;
  /** Inflated / compressed bytes of those streams, checked once they inflate past `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
}

export class InflationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InflationError';
  }
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
/** How far back from `stream` its dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

interface FlateStream {
  start: number;
  end: number;
}

/** The FlateDecode streams (first filter) that are not images, in file order. */
export function flateStreams(pdf: Buffer): FlateStream[] {
  const found: FlateStream[] = [];
  for (let at = pdf.indexOf(STREAM); at >= 0; at = pdf.indexOf(STREAM, at + STREAM.length)) {
    // `endstream` contains `stream`; a keyword is preceded by `>>` and whitespace, not by `end`.
    if (at >= 3 && pdf.toString('latin1', at - 3, at) === 'end') continue;
    let start = at + STREAM.length;
    if (pdf[start] === 0x0d) start += 1;
    if (pdf[start] !== 0x0a) continue;
    start += 1;
    const dictionary = pdf.toString('latin1', Math.max(0, at - DICTIONARY_WINDOW), at);
    const open = dictionary.lastIndexOf('<<');
    if (open < 0) continue;
    const own = dictionary.slice(open);
    const filter = /\/Filter\s*(\[\s*)?\/(\w+)/.exec(own);
    if (!filter || (filter[2] !== 'FlateDecode' && filter[2] !== 'Fl') || /\/Subtype\s*\/Image\b/.test(own)) continue;
    const end = pdf.indexOf(END_STREAM, start);
    if (end < 0) continue;
    found.push({ start, end });
    at = end;
  }
  return found;
}

/** Bytes `data` inflates to, counted in pieces, stopping once past `budget` (answers budget + 1 then). Damaged data counts what inflated before the damage. */
function inflatedSize(data: Buffer, budget: number): Promise<number> {
  return new Promise((resolve) => {
    const inflater = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    let size = 0;
    let settled = false;
    const settle = (value: number) => {
      if (settled) return;
      settled = true;
      inflater.destroy();
      resolve(value);
    };
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) settle(budget + 1);
    });
    inflater.on('error', () => settle(size));
    inflater.on('end', () => settle(size));
    inflater.end(data);
  });
}

/** Throws InflationError when the PDF's measured streams break a cap. */
export async function checkPdfInflation(pdf: Buffer, limits: InflationLimits): Promise<void> {
  let inflated = 0;
  let compressed = 0;
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  for (const stream of flateStreams(pdf)) {
    const data = pdf.subarray(stream.start, stream.end);
    compressed += data.length;
    inflated += await inflatedSize(data, limits.maxInflatedBytes - inflated);
    if (inflated > limits.maxInflatedBytes) throw new InflationError(`inflates to more than ${mib(limits.maxInflatedBytes)} MiB, the limit for uploaded content`);
    if (inflated > limits.ratioFloorBytes && inflated / compressed > limits.maxRatio)
      throw new InflationError(`inflates to more than ${limits.maxRatio} times its compressed size (a decompression bomb)`);
  }
}
