/**
 * Every request body this API reads (JSON through @koa/bodyparser, api/middleware/json-body.ts; a
 * raw e-mail through readRequestBody) comes through `boundedBody`: the bytes the client sent,
 * decoded from `Content-Encoding: gzip` or `deflate`, never more than `maxBytes` of them (counted
 * after decoding, whatever the headers claim), and an encoded body whose inflated bytes outgrow its
 * compressed ones more than MAX_INFLATE_RATIO times is refused as a bomb before it reaches the
 * limit. Any other coding is 415; a coding that does not decode is 400. A body refused before its
 * end is not read further, and the answer closes the connection (`closeUnlessRead`), which would
 * otherwise wait on the unread rest with the next request of its client behind it.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { pipeline, Transform, type Readable } from 'node:stream';
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

/** What a reader of the body may add: `onChunk` sees each decoded chunk, `atEnd` runs before the end is passed on; either may throw an AppError. */
export interface BodyWatch {
  onChunk?(chunk: Buffer): void;
  atEnd?(): void;
}

/**
 * The request's body, decoded and bounded (see the module comment), as a stream that fails with
 * the AppError of the first bound broken; a failure of the client's stream or of the inflater fails
 * it as it is (`bodyRefusal` words it). Throws at once for a refused coding or a declared
 * Content-Length past `maxBytes`.
 */
export function boundedBody(req: IncomingMessage, maxBytes: number, watch: BodyWatch = {}): Readable {
  const coding = contentCoding(req);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const inflater = coding ? CODINGS[coding]!() : null;
  let size = 0;
  const bounds = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        if (size + chunk.length > maxBytes) throw tooLarge(maxBytes, coding ? 'decoded request body' : 'request body');
        // bytesWritten: the compressed bytes the engine has consumed (more may wait in its buffer).
        if (inflater && size + chunk.length > RATIO_FLOOR_BYTES && size + chunk.length > inflater.bytesWritten * MAX_INFLATE_RATIO) {
          throw new AppError('COMPRESSION_RATIO_TOO_HIGH', `the ${coding} body inflates more than ${MAX_INFLATE_RATIO} times its size`, { max_ratio: MAX_INFLATE_RATIO }, 413);
        }
        watch.onChunk?.(chunk);
        size += chunk.length;
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        watch.atEnd?.();
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
  // pipeline: a client that hangs up fails the body, and a body that fails stops reading the request
  // (Node detaches a server request's socket before destroying it, so the answer can still be sent).
  if (inflater) pipeline(req, inflater, bounds, () => undefined);
  else pipeline(req, bounds, () => undefined);
  return bounds;
}

/** The 4xx a failed read of `req`'s body answers: a bound's own AppError, 400 for a coding that does not decode or a body cut short. */
export function bodyRefusal(err: unknown, req: IncomingMessage): AppError {
  if (err instanceof AppError) return err;
  if ((err as { code?: string }).code?.startsWith('Z_')) return new AppError('BAD_REQUEST', `the body is not valid ${contentCoding(req)} data`);
  return new AppError('BAD_REQUEST', 'the request body was not received whole (the connection was closed)');
}

/** After a refused body: close the connection unless the client sent all of it. */
export function closeUnlessRead(ctx: Pick<Context, 'req' | 'set'>): void {
  if (!ctx.req.complete) ctx.set('Connection', 'close');
}

/** Reads the whole decoded body of a handler that parses it itself (an e-mail), `onChunk` seeing each decoded chunk as it arrives. */
export async function readRequestBody(ctx: Pick<Context, 'req' | 'set'>, maxBytes: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer> {
  const req = ctx.req;
  try {
    // A body of known length is written into one buffer of that length: no list of chunks to concatenate.
    const declared = Number(req.headers['content-length'] ?? NaN);
    const into = contentCoding(req) === null && Number.isInteger(declared) && declared > 0 && declared <= maxBytes ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of boundedBody(req, maxBytes, { onChunk }) as AsyncIterable<Buffer>) {
      if (!into) chunks.push(chunk);
      else if (size + chunk.length <= into.length) chunk.copy(into, size);
      else throw new AppError('BAD_REQUEST', 'the request body is longer than its Content-Length');
      size += chunk.length;
    }
    return into ? into.subarray(0, size) : Buffer.concat(chunks, size);
  } catch (err) {
    closeUnlessRead(ctx);
    throw bodyRefusal(err, req);
  }
}
