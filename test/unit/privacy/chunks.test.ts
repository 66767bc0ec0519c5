import { generatePiiCorpus } from '../../../bench/pii-corpus/corpus';
import { CHUNK_MARGIN, chunksOf } from '../../../domain/privacy/chunks';
import { type PiiFinding, detectPiiSteps, runToEnd } from '../../../domain/privacy/pii';

/** The whole text scanned as one chunk, and in chunks of `size` characters. */
function scans(text: string, size: number): { whole: PiiFinding[]; chunked: PiiFinding[] } {
  return { whole: runToEnd(detectPiiSteps(text, {}, text.length + 1)), chunked: runToEnd(detectPiiSteps(text, {}, size)) };
}

describe('chunked PII scan', () => {
  // The bench corpus's messages back to back as one long mail (CRLF line breaks, as mail carries
  // them), so cuts fall everywhere: inside WhatsApp exports, signatures, wrapped addresses.
  const corpus = generatePiiCorpus({ seed: 11, messages: 400 });
  const mail = corpus
    .map((line) => line.text)
    .join('\n\n')
    .replace(/\n/g, '\r\n');

  it('finds exactly what a whole scan finds, on the bench corpus cut in small chunks', () => {
    const { whole, chunked } = scans(mail, 2_000);
    expect(chunksOf(mail, 2_000).length).toBeGreaterThan(40);
    expect(whole.length).toBeGreaterThan(500);
    expect(chunked).toEqual(whole);
  });

  it('finds exactly what a whole scan finds where no blank pair is near the cut', () => {
    // Single spaces only: every cut falls at the nominal end, and the margin carries the matches.
    const dense = corpus.map((line) => line.text.replace(/\s+/g, ' ')).join(' ');
    const { whole, chunked } = scans(dense, 3 * CHUNK_MARGIN);
    expect(chunked).toEqual(whole);
  });

  it('finds exactly what a whole scan finds in tables whose headers are read across a cut', () => {
    const table = 'name;bsn;tel;counter\n' + 'J. de Vries;111-222-333;622418903;622418903\n'.repeat(20);
    const text = `${table}\n`.repeat(6);
    const { whole, chunked } = scans(text, 700);
    expect(whole.filter((f) => f.type === 'id_number')).toHaveLength(120);
    expect(whole.filter((f) => f.type === 'phone')).toHaveLength(120);
    expect(chunked).toEqual(whole);
  });

  it('never cuts inside a CRLF line break, which a wrapped address may hold', () => {
    const text = `${'x'.repeat(95)}\r\n${'y'.repeat(300)}`;
    expect(chunksOf(text, 130)[1]).toEqual({ from: 130, to: 260 });
    expect(chunksOf(`${'x'.repeat(95)}\n\n${'y'.repeat(300)}`, 130)[1]).toEqual({ from: 96, to: 226 });
  });

  it('never cuts inside the double space of a phone number, and finds it whole', () => {
    const phone = '0161  496  0734';
    const text = `${'word '.repeat(19)} tel ${phone} ok`;
    const cut = text.indexOf('  ', 100) + 1;
    expect(chunksOf(text, cut)[0].to).not.toBe(cut);
    const { whole, chunked } = scans(text, cut);
    expect(whole).toEqual([{ type: 'phone', start: text.indexOf(phone), end: text.indexOf(phone) + phone.length }]);
    expect(chunked).toEqual(whole);
  });

  it('finds an address wrapped across CRLF whole where a chunk ends inside it', () => {
    const address = 'aisha.reid+alerts@northfield-\r\nengineering.co.uk';
    const text = `${'word '.repeat(19)}\r\n${address} ok`;
    const cut = text.indexOf('\r\n', 100) + 1;
    const { whole, chunked } = scans(text, cut);
    expect(whole).toEqual([{ type: 'email', start: text.indexOf(address), end: text.indexOf(address) + address.length }]);
    expect(chunked).toEqual(whole);
  });
});
