/**
 * A minimal streaming ZIP writer (no npm zip library is installed): entries are STORED (no
 * compression), each followed by a data descriptor holding its CRC-32 and sizes, so an entry is
 * written as its data arrives and nothing is buffered beyond the current chunk. The central
 * directory (a few dozen bytes per entry) is written at the end. No ZIP64: an archive stays below
 * 4 GiB, far above any one subject's data.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { crc32 } from 'node:zlib';

const LIMIT = 0xffff_ffff;
// bit 3: sizes and CRC follow the data; bit 11: names are UTF-8.
const FLAGS = 0x0808;

export interface ZipEntryResult {
  name: string;
  size: number;
  crc32: number;
  sha256: string;
}

interface CentralRecord extends ZipEntryResult {
  nameBytes: Buffer;
  offset: number;
}

function dosDateTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

export class ZipStreamWriter {
  private offset = 0;
  private readonly entries: CentralRecord[] = [];
  private readonly stamp: { time: number; date: number };

  constructor(
    private readonly out: Writable,
    modifiedAt: Date,
  ) {
    this.stamp = dosDateTime(modifiedAt);
  }

  /** Bytes written so far. */
  get bytesWritten(): number {
    return this.offset;
  }

  /** Writes one entry from its chunks; resolves with its size, CRC-32 and SHA-256. */
  async addEntry(name: string, chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): Promise<ZipEntryResult> {
    const nameBytes = Buffer.from(name, 'utf8');
    const offset = this.offset;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(this.stamp.time, 10);
    header.writeUInt16LE(this.stamp.date, 12);
    // CRC and sizes (14..25) stay 0: the data descriptor carries them.
    header.writeUInt16LE(nameBytes.length, 26);
    header.writeUInt16LE(0, 28);
    await this.write(Buffer.concat([header, nameBytes]));

    let crc = 0;
    let size = 0;
    const sha = createHash('sha256');
    for await (const chunk of chunks) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      if (buf.length === 0) continue;
      crc = crc32(buf, crc);
      sha.update(buf);
      size += buf.length;
      if (size > LIMIT) throw new Error(`zip entry ${name} exceeds 4 GiB`);
      await this.write(buf);
    }
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(size, 8);
    descriptor.writeUInt32LE(size, 12);
    await this.write(descriptor);

    const result = { name, size, crc32: crc >>> 0, sha256: sha.digest('hex') };
    this.entries.push({ ...result, nameBytes, offset });
    return result;
  }

  /** Writes the central directory and ends the output stream; resolves with the archive size. */
  async finish(): Promise<number> {
    const cdStart = this.offset;
    for (const e of this.entries) {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(20, 4);
      h.writeUInt16LE(20, 6);
      h.writeUInt16LE(FLAGS, 8);
      h.writeUInt16LE(0, 10);
      h.writeUInt16LE(this.stamp.time, 12);
      h.writeUInt16LE(this.stamp.date, 14);
      h.writeUInt32LE(e.crc32, 16);
      h.writeUInt32LE(e.size, 20);
      h.writeUInt32LE(e.size, 24);
      h.writeUInt16LE(e.nameBytes.length, 28);
      // extra, comment, disk, internal and external attributes: 0
      h.writeUInt32LE(e.offset, 42);
      await this.write(Buffer.concat([h, e.nameBytes]));
    }
    const cdSize = this.offset - cdStart;
    if (this.offset > LIMIT || this.entries.length > 0xffff) throw new Error('zip archive exceeds the non-ZIP64 limits');
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(cdSize, 12);
    end.writeUInt32LE(cdStart, 16);
    await this.write(end);
    this.out.end();
    return this.offset;
  }

  private async write(buf: Buffer): Promise<void> {
    if (this.out.destroyed) throw new Error('zip output stream is closed');
    this.offset += buf.length;
    // `once` rejects when the stream errors (e.g. the upload behind it failed) instead of waiting forever.
    if (!this.out.write(buf)) await once(this.out, 'drain');
  }
}

/** Reads a stored (uncompressed) ZIP held in memory: for tests and small checks only. */
export function readStoredZip(zip: Buffer): Map<string, Buffer> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory');
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    if (method !== 0) throw new Error(`entry ${name} is compressed`);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + size);
    if (crc32(data) >>> 0 !== crc) throw new Error(`CRC mismatch in ${name}`);
    files.set(name, data);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return files;
}
