/**
 * The export's ZIP, written by archiver one entry at a time as its data arrives: an entry's chunks
 * are pulled only as the output drains, so nothing is held beyond archiver's stream buffers. What
 * archiver does not give us is kept here: each entry's size and SHA-256 (for the manifest), waiting
 * for one entry to be written before the next starts (so one database cursor or object download is
 * open at a time), and failing at once, instead of waiting for a drain that never comes, when the
 * output (the upload behind it) fails.
 */
import archiver from 'archiver';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';

// JSON compresses about tenfold; level 6 (zlib's default) costs little more time than storing (bench `export`).
const DEFLATE_LEVEL = 6;

// Rows arrive as small strings; each write into deflate is a round trip to the zlib thread pool, so they go in batches.
const BATCH_BYTES = 64 * 1024;

export interface ZipEntryResult {
  name: string;
  /** Uncompressed bytes. */
  size: number;
  sha256: string;
}

export class ExportZip {
  private readonly archive = archiver('zip', { zlib: { level: DEFLATE_LEVEL } });
  private readonly finished: Promise<unknown>;
  private failure: Error | null = null;
  private readonly failed: Promise<never>;
  private readonly stop: (err: Error) => void;

  constructor(
    out: Writable,
    private readonly modifiedAt: Date,
  ) {
    let fail!: (err: Error) => void;
    this.failed = new Promise<never>((_, reject) => (fail = reject));
    this.failed.catch(() => undefined);
    let ended = false;
    this.stop = (err: Error) => {
      if (this.failure || ended) return;
      this.failure = err;
      fail(err);
      this.archive.abort();
    };
    this.archive.on('error', this.stop);
    this.archive.on('warning', this.stop);
    out.on('error', this.stop);
    out.on('finish', () => (ended = true));
    out.on('close', () => this.stop(new Error('zip output stream is closed')));
    this.finished = once(out, 'finish');
    this.finished.catch(() => undefined);
    this.archive.pipe(out);
  }

  /** Bytes of archive written so far. */
  get bytesWritten(): number {
    return this.archive.pointer();
  }

  /** Writes one entry from its chunks; resolves once it is in the archive, with its size and SHA-256. */
  async addEntry(name: string, chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): Promise<ZipEntryResult> {
    if (this.failure) throw this.failure;
    const sha = createHash('sha256');
    let size = 0;
    const stop = this.stop;
    async function* hashed() {
      try {
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        for await (const chunk of chunks) {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
          sha.update(buf);
          size += buf.length;
          pending.push(buf);
          pendingBytes += buf.length;
          if (pendingBytes >= BATCH_BYTES) {
            yield Buffer.concat(pending, pendingBytes);
            pending = [];
            pendingBytes = 0;
          }
        }
        if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
      } catch (err) {
        stop(err as Error);
        throw err;
      }
    }
    const written = once(this.archive, 'entry');
    const source = Readable.from(hashed(), { objectMode: false });
    // The failure is reported through `stop` above; this keeps the source's own 'error' from being unhandled.
    source.on('error', () => undefined);
    this.archive.append(source, { name, date: this.modifiedAt });
    await Promise.race([written, this.failed]);
    return { name, size, sha256: sha.digest('hex') };
  }

  /** Writes the central directory and ends the output; resolves with the archive's size once all of it is written. */
  async finish(): Promise<number> {
    if (this.failure) throw this.failure;
    await Promise.race([Promise.all([this.archive.finalize(), this.finished]), this.failed]);
    return this.archive.pointer();
  }
}
