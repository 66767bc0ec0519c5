/**
 * Hostile multipart/form-data bodies, deterministic: thousands of parts (named like the upload's
 * own field, unnamed ones a parser skips, or extra files), and a part whose headers never end.
 */
export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

const BOUNDARY = 'hostile-boundary';

function form(parts: string[]): MultipartBody {
  return { body: Buffer.from(`${parts.join('')}--${BOUNDARY}--\r\n`, 'utf8'), contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}

/** `parts` parts: `unnamed` (no Content-Disposition), `fields` (form fields) or `files` (file parts). */
export function manyParts(parts: number, kind: 'unnamed' | 'fields' | 'files'): MultipartBody {
  const out: string[] = [];
  for (let i = 0; i < parts; i++) {
    const disposition =
      kind === 'unnamed' ? '' : kind === 'fields' ? `Content-Disposition: form-data; name="f${i}"\r\n` : `Content-Disposition: form-data; name="file"; filename="f${i}.txt"\r\n`;
    out.push(`--${BOUNDARY}\r\n${disposition}Content-Type: text/plain\r\n\r\nx\r\n`);
  }
  return form(out);
}

/** One part whose header block is `bytes` long, without the blank line that would end it. */
export function endlessPartHeader(bytes: number): MultipartBody {
  return { body: Buffer.from(`--${BOUNDARY}\r\nX-Filler: ${'h'.repeat(bytes)}`, 'utf8'), contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}
