/**
 * The one way a handler reads a request body it parses itself (JSON, a raw e-mail): the bytes the
 * client sent, decoded from `Content-Encoding: gzip` or `deflate`, never more than `maxBytes` of
 * them (counted after decoding, whatever the headers claim), and an encoded body whose inflated
 * bytes outgrow its compressed ones more than MAX_INFLATE_RATIO times is refused as a bomb before
 * it reaches the limit. Any other coding is 415; a coding that does not decode is 400.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AppError } from '../domain/errors';

/**
 * Inflated bytes per compressed byte past which a body is a bomb: a batch of 500 readings that
 * differ only in their ids compresses 49x with gzip, varied readings 18x, text far less; gzip's own
 * ceiling is about 1 000x (docs/SECURITY.md, "Untrusted messages").
 */
export const MAX_INFLATE_RATIO = 100;
/** The ratio is judged once this much has been inflated: a small body may compress as it likes. */
const RATIO_FLOOR_BYTES = 64 * 1024;

const CODINGS: Record<string, () => zlib.Gunzip | zlib.Inflate> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
};

export const tooLarge = (maxBytes: number, what = 'request body'): AppError => new AppError('PAYLOAD_TOO_LARGE', `the ${what} exceeds ${maxBytes} bytes`, { max_bytes: maxBytes });

/** The request's Content-Encoding, checked: null for none (identity); 415 for one this API does not decode. */
export function contentCoding(req: IncomingMessage): string | null {
  const coding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return null;
  if (!Object.hasOwn(CODINGS, coding)) {
    throw new AppError('UNSUPPORTED_CONTENT_ENCODING', 'the body must be sent without Content-Encoding, or with gzip or deflate', { accepted: ['gzip', 'deflate'] }, 415);
  }
  return coding;
}

/**
 * Reads the whole decoded body (see the module comment); `onChunk` sees each decoded chunk as it
 * arrives. A body refused before its end is not read further: the answer closes the connection,
 * which would otherwise wait on the unread rest with the next request of its client behind it.
 */
export async function readRequestBody(ctx: Pick<Context, 'req' | 'set'>, maxBytes: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer> {
  try {
    return await readDecoded(ctx.req, maxBytes, onChunk);
  } catch (err) {
    if (!ctx.req.complete) ctx.set('Connection', 'close');
    throw err;
  }
}

async function readDecoded(req: IncomingMessage, maxBytes: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer> {
  const coding = contentCoding(req);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  let source: Readable = req;
  let inflater: zlib.Gunzip | zlib.Inflate | null = null;
  if (coding) {
    inflater = CODINGS[coding]!();
    // pipeline: a client that hangs up ends the inflater with an error instead of leaving it waiting.
    source = pipeline(req, inflater, () => undefined);
  }
  // A body of known length is written into one buffer of that length: no list of chunks to concatenate.
  const into = !inflater && Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) throw tooLarge(maxBytes, coding ? 'decoded request body' : 'request body');
      // bytesWritten: the compressed bytes the engine has consumed (more may wait in its buffer).
      if (inflater && size + chunk.length > RATIO_FLOOR_BYTES && size + chunk.length > inflater.bytesWritten * MAX_INFLATE_RATIO) {
        throw new AppError('COMPRESSION_RATIO_TOO_HIGH', `the ${coding} body inflates more than ${MAX_INFLATE_RATIO} times its size`, { max_ratio: MAX_INFLATE_RATIO }, 413);
      }
      onChunk?.(chunk);
      if (!into) chunks.push(chunk);
      else if (size + chunk.length <= into.length) chunk.copy(into, size);
      else throw new AppError('BAD_REQUEST', 'the request body is longer than its Content-Length');
      size += chunk.length;
    }
  } catch (err) {
    if (source !== req) {
      req.unpipe();
      source.destroy();
    }
    if (err instanceof AppError) throw err;
    if ((err as { code?: string }).code?.startsWith('Z_')) throw new AppError('BAD_REQUEST', `the body is not valid ${coding} data`);
    throw new AppError('BAD_REQUEST', 'the request body was not received whole (the connection was closed)');
  }
  return into ? into.subarray(0, size) : Buffer.concat(chunks, size);
}
