import { checkDeclaredType, DOCX, isUtf8Text, sniffContentType, XLSX } from '../../../domain/files/sniff';
import { cleanFileName } from '../../../domain/files/file-name';

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const zipWith = (...names: string[]) => bytes([0x50, 0x4b, 0x03, 0x04], ...names.map((n) => `\x14\x00\x06\x00${n}\x00\x00binary`));

describe('sniffContentType', () => {
  it.each([
    ['PDF', bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'), 'application/pdf'],
    ['PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16]), 'image/jpeg'],
    ['GIF89a', bytes('GIF89a\x01\x00'), 'image/gif'],
    ['GIF87a', bytes('GIF87a\x01\x00'), 'image/gif'],
    ['WEBP', bytes('RIFF\x24\x00\x00\x00WEBPVP8 '), 'image/webp'],
    ['RIFF that is not WEBP (WAV)', bytes('RIFF\x24\x00\x00\x00WAVEfmt \x00'), 'application/octet-stream'],
    ['plain ZIP', zipWith('notes.txt'), 'application/zip'],
    ['DOCX', zipWith('[Content_Types].xml', '_rels/.rels', 'word/document.xml'), DOCX],
    ['XLSX', zipWith('[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml'), XLSX],
    ['OOXML whose parts are past the head', zipWith('[Content_Types].xml'), 'application/zip'],
    ['CSV', bytes('date,value\n2026-01-01,4.2\n'), 'text/plain'],
    ['UTF-8 text', Buffer.from('Übergabe: Pumpe 3 — ok ✓', 'utf8'), 'text/plain'],
    ['EXE (MZ header with NULs)', bytes('MZ\x90\x00\x03\x00\x00\x00'), 'application/octet-stream'],
    ['Latin-1 text (invalid UTF-8)', bytes('caf\xe9 cr\xe8me'), 'application/octet-stream'],
    ['empty', Buffer.alloc(0), 'text/plain'],
  ])('%s', (_name, head, expected) => {
    expect(sniffContentType(head, true)).toBe(expected);
  });

  it('accepts a multi-byte character cut by the end of the head only when more bytes follow', () => {
    const cut = Buffer.from('ok €', 'utf8').subarray(0, 5); // '€' is 3 bytes: 2 of them kept
    expect(isUtf8Text(cut, false)).toBe(true);
    expect(isUtf8Text(cut, true)).toBe(false);
  });

  it('refuses overlong encodings and surrogates', () => {
    expect(isUtf8Text(Buffer.from([0xc0, 0xaf]), true)).toBe(false);
    expect(isUtf8Text(Buffer.from([0xe0, 0x80, 0xaf]), true)).toBe(false);
    expect(isUtf8Text(Buffer.from([0xed, 0xa0, 0x80]), true)).toBe(false);
  });
});

describe('checkDeclaredType', () => {
  it('stores the sniffed type when nothing or a generic type is declared', () => {
    expect(checkDeclaredType(undefined, 'application/pdf')).toEqual({ ok: true, contentType: 'application/pdf' });
    expect(checkDeclaredType('application/octet-stream', 'image/png')).toEqual({ ok: true, contentType: 'image/png' });
  });

  it('refuses a recognisable type the bytes contradict', () => {
    expect(checkDeclaredType('image/png', 'application/pdf')).toEqual({ ok: false, declared: 'image/png', sniffed: 'application/pdf' });
    expect(checkDeclaredType('image/png', 'application/octet-stream')).toEqual({ ok: false, declared: 'image/png', sniffed: 'application/octet-stream' });
    expect(checkDeclaredType('text/csv', 'application/octet-stream')).toEqual({ ok: false, declared: 'text/csv', sniffed: 'application/octet-stream' });
    expect(checkDeclaredType('application/pdf', 'text/plain')).toEqual({ ok: false, declared: 'application/pdf', sniffed: 'text/plain' });
    expect(checkDeclaredType('video/mp4', 'application/pdf')).toEqual({ ok: false, declared: 'video/mp4', sniffed: 'application/pdf' });
  });

  it('accepts the same family, keeping a safe refinement of a generic sniff', () => {
    expect(checkDeclaredType('Text/CSV; charset=utf-8', 'text/plain')).toEqual({ ok: true, contentType: 'text/csv' });
    expect(checkDeclaredType('text/html', 'text/plain')).toEqual({ ok: true, contentType: 'text/plain' });
    expect(checkDeclaredType(XLSX, 'application/zip')).toEqual({ ok: true, contentType: XLSX });
    expect(checkDeclaredType(XLSX, DOCX)).toEqual({ ok: true, contentType: DOCX });
    expect(checkDeclaredType('image/jpg', 'image/jpeg')).toEqual({ ok: true, contentType: 'image/jpeg' });
  });

  it('cannot contradict an unrecognisable claim on unrecognised bytes', () => {
    expect(checkDeclaredType('video/mp4', 'application/octet-stream')).toEqual({ ok: true, contentType: 'application/octet-stream' });
  });
});

describe('cleanFileName', () => {
  it('keeps the base name without control characters, bounded', () => {
    expect(cleanFileName('C:\\fakepath\\report.pdf')).toBe('report.pdf');
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName(' a\u0000b\nc.txt ')).toBe('abc.txt');
    expect(cleanFileName('x'.repeat(300))).toHaveLength(255);
    expect(cleanFileName(undefined)).toBe('upload');
    expect(cleanFileName('..')).toBe('upload');
  });
});
