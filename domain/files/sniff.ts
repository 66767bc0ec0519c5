/**
 * What a file is, from its first bytes (issue 8: the client's Content-Type is a claim, never
 * trusted). Pure: the upload route hands it the head of the stream (SNIFF_BYTES at most) and
 * whether that head is the whole file.
 */
import { ownValue } from '../own';

export const SNIFF_BYTES = 4096;

export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

export type SniffedType =
  | 'application/pdf'
  | 'image/png'
  | 'image/jpeg'
  | 'image/gif'
  | 'image/webp'
  | 'application/zip'
  | typeof DOCX
  | typeof XLSX
  | typeof PPTX
  | 'text/plain'
  | 'application/octet-stream';

const ZIP_FAMILY: readonly string[] = ['application/zip', DOCX, XLSX, PPTX];

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0) => head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const contains = (head: Uint8Array, text: string) => Buffer.from(head.buffer, head.byteOffset, head.byteLength).includes(text, 0, 'latin1');

/** The type of the bytes; `complete` says the head is the whole file (a cut UTF-8 sequence at its end is then invalid). */
export function sniffContentType(head: Uint8Array, complete: boolean): SniffedType {
  if (startsWith(head, ascii('%PDF-'))) return 'application/pdf';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return sniffZip(head);
  if (isUtf8Text(head, complete)) return 'text/plain';
  return 'application/octet-stream';
}

// Office Open XML packages are ZIPs whose first entries are [Content_Types].xml and the part
// folders; entry names are stored uncompressed in the local headers. Not found in the head: a ZIP.
function sniffZip(head: Uint8Array): SniffedType {
  if (!contains(head, '[Content_Types].xml')) return 'application/zip';
  if (contains(head, 'word/')) return DOCX;
  if (contains(head, 'xl/')) return XLSX;
  if (contains(head, 'ppt/')) return PPTX;
  return 'application/zip';
}

/** Valid UTF-8 without NUL bytes; a multi-byte sequence cut by the end of an incomplete head is fine. */
export function isUtf8Text(head: Uint8Array, complete: boolean): boolean {
  let i = 0;
  while (i < head.length) {
    const b = head[i];
    if (b === 0) return false;
    const extra = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (extra < 0) return false;
    if (i + extra >= head.length && extra > 0) {
      // Cut at the end: only acceptable when more bytes follow.
      for (let j = i + 1; j < head.length; j += 1) if ((head[j] & 0xc0) !== 0x80) return false;
      return !complete;
    }
    for (let j = 1; j <= extra; j += 1) if ((head[i + j] & 0xc0) !== 0x80) return false;
    if (extra === 2) {
      const cp = ((b & 0x0f) << 12) | ((head[i + 1] & 0x3f) << 6) | (head[i + 2] & 0x3f);
      if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return false; // overlong or surrogate
    }
    if (extra === 3) {
      const cp = ((b & 0x07) << 18) | ((head[i + 1] & 0x3f) << 12) | ((head[i + 2] & 0x3f) << 6) | (head[i + 3] & 0x3f);
      if (cp < 0x10000 || cp > 0x10ffff) return false;
    }
    i += extra + 1;
  }
  return true;
}

export type DeclaredTypeCheck = { ok: true; contentType: string } | { ok: false; declared: string; sniffed: SniffedType };

const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'application/x-zip-compressed': 'application/zip',
  'application/x-pdf': 'application/pdf',
};
const TEXT_LIKE = ['application/json', 'application/xml', 'application/csv', 'application/x-ndjson', 'application/yaml', 'application/x-yaml'];
/** Declared types stored as declared when the bytes agree: more precise than the sniffed family, and never rendered as active content. */
const REFINEMENTS = ['text/csv', 'text/tab-separated-values', 'text/markdown', 'application/json', DOCX, XLSX, PPTX];

const isTextLike = (type: string) => type.startsWith('text/') || TEXT_LIKE.includes(type);
const isZipLike = (type: string) => ZIP_FAMILY.includes(type);
/** Types the sniffer would have recognised in the bytes, had they been what the client said. */
const isRecognisable = (type: string) => isTextLike(type) || isZipLike(type) || ['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(type);

export function normaliseMediaType(declared: string | undefined): string | undefined {
  const type = declared?.split(';')[0].trim().toLowerCase();
  if (!type) return undefined;
  return ownValue(ALIASES, type) ?? type;
}

/**
 * Does the client's declared type contradict the bytes? Absent or `application/octet-stream`
 * declares nothing. A type of the sniffed family is fine (text/csv for text, xlsx for a ZIP); an
 * unrecognisable claim (video/mp4) on unrecognised bytes cannot be contradicted. Anything else is
 * a mismatch. The stored type is the sniffed one, or the declared refinement of the same family.
 */
export function checkDeclaredType(declared: string | undefined, sniffed: SniffedType): DeclaredTypeCheck {
  const type = normaliseMediaType(declared);
  if (!type || type === 'application/octet-stream' || type === sniffed) return { ok: true, contentType: sniffed };
  const sameFamily = (sniffed === 'text/plain' && isTextLike(type)) || (isZipLike(sniffed) && isZipLike(type));
  if (sameFamily) {
    // Only a generic sniff is refined: a sniffed docx stays docx whatever ZIP type was declared.
    const refine = REFINEMENTS.includes(type) && (sniffed === 'text/plain' || sniffed === 'application/zip');
    return { ok: true, contentType: refine ? type : sniffed };
  }
  if (sniffed === 'application/octet-stream' && !isRecognisable(type)) return { ok: true, contentType: sniffed };
  return { ok: false, declared: type, sniffed };
}
