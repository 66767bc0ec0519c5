/**
 * Compression bombs, deterministic and cheap to make: gzip members concatenate (a gzip reader
 * inflates one after another), so a bomb of N MiB is one compressed MiB of a repeated byte, about
 * 1 KiB, repeated N times: 1 GiB inflated from about 1 MiB sent.
 */
import zlib from 'node:zlib';

const MIB = 1024 * 1024;
const mebibyteOf = new Map<number, Buffer>();

function compressedMebibyte(byte: number): Buffer {
  let member: Buffer | undefined = mebibyteOf.get(byte);
  if (!member) {
    member = zlib.gzipSync(Buffer.alloc(MIB, byte), { level: 9 });
    mebibyteOf.set(byte, member);
  }
  return member;
}

/** gzip that inflates to `prefix`, then `mebibytes` MiB of `filler`, then `suffix`. */
export function gzipBomb(mebibytes: number, options: { prefix?: string; suffix?: string; filler?: string } = {}): Buffer {
  const members: Buffer[] = [zlib.gzipSync(Buffer.from(options.prefix ?? ''))];
  const filler = compressedMebibyte((options.filler ?? ' ').charCodeAt(0));
  for (let i = 0; i < mebibytes; i++) members.push(filler);
  members.push(zlib.gzipSync(Buffer.from(options.suffix ?? '')));
  return Buffer.concat(members);
}

/** A JSON body that inflates to `mebibytes` MiB: `{"pad":"aaa..."}`. */
export function jsonBomb(mebibytes: number): Buffer {
  return gzipBomb(mebibytes, { prefix: '{"pad":"', filler: 'a', suffix: '"}' });
}

/** The same body in the zlib format (`Content-Encoding: deflate`), which has no members to repeat: deflated whole. */
export function deflateJsonBomb(mebibytes: number): Buffer {
  return zlib.deflateSync(Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(mebibytes * MIB, 'a'), Buffer.from('"}')]), { level: 9 });
}

/** gzip of `text` as it is, at the highest ratio: a body under a route's size limit whose ratio alone is hostile. */
export function gzipText(text: string): Buffer {
  return zlib.gzipSync(Buffer.from(text), { level: 9 });
}

/** Bytes that claim to be gzip and are not. */
export function notGzip(bytes: number): Buffer {
  const out = Buffer.alloc(bytes, 0x41);
  out[0] = 0x1f;
  out[1] = 0x8b;
  return out;
}
