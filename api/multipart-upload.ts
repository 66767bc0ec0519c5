/**
 * Receives one file of a `multipart/form-data` request and streams it into the object store
 * while hashing and counting it: the file is never held whole in memory (at most one object-store
 * part, infra/object-upload.ts). The type is sniffed from the first bytes before anything is
 * stored; a declared type that contradicts them, or a file over the size limit, stores nothing.
 */
import busboy from 'busboy';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { cleanFileName } from '../domain/files/file-name';
import { checkDeclaredType, SNIFF_BYTES, sniffContentType } from '../domain/files/sniff';
import type { ObjectStore } from '../infra/object-store';
import { uploadObjectStream } from '../infra/object-upload';
import { AppContext } from './context';
import { AppError, validationError } from '../domain/errors';

export interface ReceivedUpload {
  fileName: string;
  /** Sniffed (or a refinement of the sniffed family the client declared). */
  contentType: string;
  sizeBytes: number;
  sha256: string;
  /** The other form fields, by name (only the allowed ones). */
  fields: Record<string, string>;
}

export interface UploadOptions {
  objectStore: ObjectStore;
  objectKey: string;
  maxBytes: number;
  fileField: string;
  /**
   * Allowed text fields and their check; any other field is a 422. Looked up as own keys only:
   * a field named `__proto__` or `constructor` is just another unknown field.
   */
  fields: Readonly<Record<string, (value: string) => boolean>>;
}

/** Room for boundaries and part headers around the file in a request's Content-Length. */
const MULTIPART_OVERHEAD = 64 * 1024;

export const payloadTooLarge = (maxBytes: number): AppError =>
  new AppError('PAYLOAD_TOO_LARGE', `the file exceeds the plan's upload limit of ${maxBytes} bytes`, { max_bytes: maxBytes });

/**
 * Streams the request's file to `objectKey`. On failure nothing is left in the store and the rest
 * of the request is not read (the response asks the client to close the connection).
 */
export async function receiveUpload(ctx: AppContext, opts: UploadOptions): Promise<ReceivedUpload> {
  if (!ctx.is('multipart/form-data')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `send the file as multipart/form-data in a "${opts.fileField}" field`);
  }
  // An upload is read as sent: its file is stored, never inflated here (an archive stays one).
  if ((ctx.get('Content-Encoding') || 'identity').trim().toLowerCase() !== 'identity') {
    closeAfterResponse(ctx);
    throw new AppError('UNSUPPORTED_CONTENT_ENCODING', 'send the upload without Content-Encoding', {}, 415);
  }
  const declaredLength = Number(ctx.get('content-length'));
  if (Number.isFinite(declaredLength) && declaredLength > opts.maxBytes + MULTIPART_OVERHEAD) {
    closeAfterResponse(ctx);
    throw payloadTooLarge(opts.maxBytes);
  }
  // Every part counts, the unnamed ones busboy would skip included: the file and each allowed field once.
  const maxParts = Object.keys(opts.fields).length + 1;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: ctx.req.headers,
      defParamCharset: 'utf8',
      // One byte over the limit is enough to know it is too large; busboy then truncates.
      // busboy counts the closing delimiter as a part's end too: `parts` is one past the parts allowed.
      limits: { files: 1, fileSize: opts.maxBytes + 1, fields: Object.keys(opts.fields).length, fieldSize: 1024, parts: maxParts + 1 },
    });
  } catch {
    throw new AppError('BAD_REQUEST', 'malformed multipart/form-data header (boundary missing)');
  }

  return new Promise<ReceivedUpload>((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null);
    let stored: Promise<Omit<ReceivedUpload, 'fields'>> | null = null;
    let fileStream: Readable | null = null;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(parser);
      // Ends an upload in progress (its iterator throws, the multipart upload aborts).
      fileStream?.destroy(err instanceof Error ? err : new Error(String(err)));
      closeAfterResponse(ctx);
      // A part already in the store is removed; an unfinished multipart upload aborts itself.
      void (stored ?? Promise.resolve())
        .then(() => opts.objectStore.client.removeObject(opts.objectStore.bucket, opts.objectKey))
        .catch(() => undefined)
        .finally(() => reject(err instanceof Error ? err : new Error(String(err))));
    };
    const refuse = (field: string, message: string) => validationError(`${field} ${message}`, [{ field: `body.${field}`, message, type: 'any.invalid' }]);

    // An exception in a parser callback would escape the request and end the process: each
    // callback fails this request instead.
    const guarded =
      <A extends unknown[]>(handler: (...args: A) => void) =>
      (...args: A): void => {
        try {
          handler(...args);
        } catch (err) {
          fail(err);
        }
      };
    parser.on(
      'field',
      guarded((name: string | undefined, value: string, info: busboy.FieldInfo) => {
        const check = name !== undefined && Object.hasOwn(opts.fields, name) ? opts.fields[name] : undefined;
        if (!check) return fail(refuse(printable(name), 'is not an accepted form field'));
        if (info.valueTruncated || value.includes('\u0000') || !check(value)) return fail(refuse(name!, 'is invalid'));
        fields[name!] = value;
      }),
    );
    parser.on(
      'file',
      guarded((name: string | undefined, stream: Readable, info: busboy.FileInfo) => {
        if (name !== opts.fileField) {
          stream.resume();
          return fail(refuse(printable(name), `is not an accepted form field (send the file as "${opts.fileField}")`));
        }
        fileStream = stream;
        stored = storeFile(stream, info, opts);
        stored.catch(fail);
      }),
    );
    parser.on('filesLimit', () => fail(refuse(opts.fileField, 'must be the only file of the request')));
    parser.on('fieldsLimit', () => fail(refuse('form', 'has too many fields')));
    parser.on('partsLimit', () => fail(new AppError('MULTIPART_TOO_MANY_PARTS', `the form has more than ${maxParts} parts`, { max_parts: maxParts }, 422)));
    parser.on('error', () => fail(new AppError('BAD_REQUEST', 'malformed multipart/form-data body')));
    parser.on('close', () => {
      if (failed) return;
      if (!stored) return fail(refuse(opts.fileField, 'is required'));
      stored.then(
        (file) => resolve({ ...file, fields }),
        () => undefined,
      );
    });
    ctx.req.on('aborted', () => fail(new AppError('BAD_REQUEST', 'the client aborted the upload')));
    ctx.req.on('error', () => fail(new AppError('BAD_REQUEST', 'the upload connection failed')));
    ctx.req.pipe(parser);
  });
}

async function storeFile(stream: Readable, info: busboy.FileInfo, opts: UploadOptions): Promise<Omit<ReceivedUpload, 'fields'>> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const { head, ended } = await readHead(chunks, SNIFF_BYTES);
  // busboy reports a part without Content-Type as text/plain: that claims nothing.
  const declared = info.mimeType === 'text/plain' ? undefined : info.mimeType;
  const check = checkDeclaredType(declared, sniffContentType(head, ended));
  if (!check.ok) {
    stream.resume();
    throw new AppError(
      'CONTENT_TYPE_MISMATCH',
      `the file was declared ${check.declared} but its bytes are ${check.sniffed}`,
      { declared: check.declared, sniffed: check.sniffed },
      415,
    );
  }
  const hash = createHash('sha256');
  let size = 0;
  async function* metered(): AsyncGenerator<Buffer> {
    for (let chunk: Buffer | null = head; chunk !== null; chunk = ended ? null : await next(chunks)) {
      size += chunk.length;
      if (size > opts.maxBytes) throw payloadTooLarge(opts.maxBytes);
      hash.update(chunk);
      if (chunk.length > 0) yield chunk;
    }
  }
  await uploadObjectStream(opts.objectStore, opts.objectKey, metered(), { contentType: check.contentType });
  return { fileName: cleanFileName(info.filename), contentType: check.contentType, sizeBytes: size, sha256: hash.digest('hex') };
}

async function next(chunks: AsyncIterator<Buffer>): Promise<Buffer | null> {
  const r = await chunks.next();
  return r.done ? null : r.value;
}

/** The first `bytes` of the stream (or all of it, `ended`, when shorter). */
async function readHead(chunks: AsyncIterator<Buffer>, bytes: number): Promise<{ head: Buffer; ended: boolean }> {
  const parts: Buffer[] = [];
  let length = 0;
  while (length < bytes) {
    const chunk = await next(chunks);
    if (chunk === null) return { head: Buffer.concat(parts, length), ended: true };
    parts.push(chunk);
    length += chunk.length;
  }
  return { head: Buffer.concat(parts, length), ended: false };
}

// eslint-disable-next-line no-control-regex -- control characters are what this replaces
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A client's field name as it may appear in an error: bounded, without control characters (busboy gives an empty name as undefined). */
function printable(name: string | undefined): string {
  return (name ?? '').replace(CONTROL_CHARACTERS, '?').slice(0, 100) || '(unnamed)';
}

function closeAfterResponse(ctx: AppContext): void {
  ctx.set('Connection', 'close');
}
