/**
 * Hostile PDFs, written object by object (deterministic, no fixture files): a page whose content
 * stream is a flate bomb (1 MiB that inflates to 1 GiB), the same bomb behind a filter chain that
 * no pre-scan can measure without decoding (ASCIIHex first), and bytes that only start like a PDF.
 */
import { deflatedZeros } from './images';

/** A PDF of the given objects (1-based, object 1 the catalog), with a correct xref table. */
export function pdfOf(objects: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(at);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    at += object.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const stream = (dictionary: string, data: Buffer) => Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);

/** One A4 page whose content stream is `content` under `filters`, with Helvetica as F1. */
export function onePagePdf(content: Buffer, filters: string): Buffer {
  return pdfOf([
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'),
    stream(filters ? `/Filter ${filters}` : '', content),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ]);
}

const GIB = 1024 * 1024 * 1024;

/** About 1 MiB whose one content stream inflates to `inflated` bytes (1 GiB by default) of zeros. */
export function pdfFlateBomb(inflated = GIB): Buffer {
  return onePagePdf(deflatedZeros(inflated), '/FlateDecode');
}

/** The same bomb hex-encoded first (/Filter [/ASCIIHexDecode /FlateDecode]): only the memory ceiling stops it. */
export function pdfChainedFlateBomb(inflated = GIB): Buffer {
  return onePagePdf(Buffer.from(`${deflatedZeros(inflated).toString('hex')}>`), '[/ASCIIHexDecode /FlateDecode]');
}

/** `%PDF-` and then noise: sniffed as a PDF, readable by no parser. */
export function pdfCorrupt(): Buffer {
  return Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 0x5a), Buffer.from('\n%%EOF\n')]);
}

/** A small well-formed PDF with one line of text (the control: it must still be read). */
export function pdfWithText(text: string): Buffer {
  return onePagePdf(Buffer.from(`BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`), '');
}

export const HOSTILE_PDFS: Readonly<Record<string, () => Buffer>> = {
  'pdf-flate-bomb': () => pdfFlateBomb(),
  'pdf-chained-flate-bomb': () => pdfChainedFlateBomb(),
  'pdf-corrupt': pdfCorrupt,
};
