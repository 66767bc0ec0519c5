/**
 * Hostile images, built byte by byte (deterministic, no fixture files): the PNG shapes that ended
 * or froze a process through pdfkit's png-js, pixel bombs that declare far more pixels than they
 * carry, and corrupt JPEGs.
 */
import zlib from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk: length, type, data, CRC over type and data. */
export function pngChunk(type: string, data: Buffer, length = data.length): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(length >>> 0, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** IHDR of `width` x `height`, 8 bits, colour type 6 (RGBA: pdfkit decodes it with png-js to split the alpha). */
function ihdr(width: number, height: number, colourType = 6, interlace = 0): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = 8;
  data[9] = colourType;
  data[10] = 0;
  data[11] = 0;
  data[12] = interlace;
  return pngChunk('IHDR', data);
}

const IEND = pngChunk('IEND', Buffer.alloc(0));

/** A well-formed RGBA PNG of `width` x `height` (a colour gradient): what a tenant's real logo looks like. */
export function validPng(width = 64, height = 48): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 4);
    for (let x = 0; x < width; x += 1) row.set([(x * 255) / width, (y * 255) / height, 128, 255], 1 + x * 4);
    rows.push(row);
  }
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height), pngChunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), IEND]);
}

/** 85 bytes: an RGBA PNG whose IDAT is not zlib data (png-js threw it from inside a zlib callback). */
export function pngIdatNotZlib(): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ihdr(4, 4), pngChunk('IDAT', Buffer.from('this is not zlib data at all')), IEND]);
}

/** An unknown chunk whose length reads as -12 to png-js's signed reader: the parser steps back onto the same chunk for ever. */
export function pngNegativeChunkLength(): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ihdr(4, 4), pngChunk('zzZz', Buffer.alloc(0), 0xfffffff4), pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(4 * 17))), IEND]);
}

const PIECE = 16 * 1024 * 1024;

/**
 * Deflate data of `bytes` zero bytes (a multiple of 16 MiB or less), about 1 KiB per MiB, without
 * ever holding the zeros: one 16 MiB piece is compressed with a full flush (which resets the
 * compressor, so every piece compresses to the same bytes) and repeated, then a final empty block.
 * `zlib` wraps it as RFC 1950 (PNG IDAT, PDF FlateDecode) with the Adler-32 of the zeros.
 */
export function deflatedZeros(bytes: number, format: 'zlib' | 'raw' = 'zlib'): Buffer {
  const pieces: Buffer[] = [];
  if (bytes <= PIECE) pieces.push(zlib.deflateRawSync(Buffer.alloc(bytes), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH }));
  else {
    if (bytes % PIECE !== 0) throw new Error('deflatedZeros: more than 16 MiB must be a multiple of 16 MiB');
    const piece = zlib.deflateRawSync(Buffer.alloc(PIECE), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
    for (let i = 0; i < bytes / PIECE; i += 1) pieces.push(piece);
  }
  pieces.push(zlib.deflateRawSync(Buffer.alloc(0)));
  if (format === 'raw') return Buffer.concat(pieces);
  // Adler-32 of n zeros: a stays 1, b adds a once per byte.
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((bytes % 65521) << 16) | 1) >>> 0, 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...pieces, adler]);
}

/** CRC-32 of `bytes` zero bytes, as a ZIP entry of them declares it. */
export function crc32OfZeros(bytes: number): number {
  const piece = Buffer.alloc(Math.min(bytes, PIECE));
  let crc = 0;
  for (let left = bytes; left > 0; left -= piece.length) crc = zlib.crc32(left >= piece.length ? piece : piece.subarray(0, left), crc);
  return crc;
}

/** 16 000 x 16 000 RGBA declared (1 GiB of pixels once decoded) in about 1 MiB of zlib data. */
export function pngPixelBomb(side = 16_000): Buffer {
  // The zlib data stops short of the declared pixels (a multiple of 16 MiB): a decoder that trusts the header still allocates them all.
  const raw = Math.floor((side * (1 + side * 4)) / PIECE) * PIECE;
  return Buffer.concat([PNG_SIGNATURE, ihdr(side, side), pngChunk('IDAT', deflatedZeros(raw)), IEND]);
}

const marker = (code: number, payload: Buffer) => {
  const head = Buffer.from([0xff, code, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
};

function sof0(width: number, height: number): Buffer {
  const payload = Buffer.alloc(15);
  payload[0] = 8;
  payload.writeUInt16BE(height, 1);
  payload.writeUInt16BE(width, 3);
  payload[5] = 3;
  for (let c = 0; c < 3; c += 1) payload.set([c + 1, 0x11, 0], 6 + c * 3);
  return marker(0xc0, payload);
}

/** A baseline JPEG header declaring 65 000 x 65 000 pixels (12 GiB decoded) with a few bytes of scan. */
export function jpegPixelBomb(): Buffer {
  const dqt = marker(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)]));
  const sos = marker(0xda, Buffer.from([3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]));
  return Buffer.concat([Buffer.from([0xff, 0xd8]), dqt, sof0(65_000, 65_000), sos, Buffer.alloc(1024, 0x55), Buffer.from([0xff, 0xd9])]);
}

/** SOI, then a marker whose length points past the end, then noise: no decoder can make an image of it. */
export function jpegCorrupt(): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xf0]), Buffer.from('JFIF\0 not really'), Buffer.alloc(200, 0xa5)]);
}

/** Every hostile image by name, for tests that send each through an entry point. */
export const HOSTILE_IMAGES: Readonly<Record<string, { contentType: 'image/png' | 'image/jpeg'; bytes: () => Buffer }>> = {
  'png-idat-not-zlib': { contentType: 'image/png', bytes: pngIdatNotZlib },
  'png-negative-chunk-length': { contentType: 'image/png', bytes: pngNegativeChunkLength },
  'png-pixel-bomb': { contentType: 'image/png', bytes: () => pngPixelBomb() },
  'jpeg-pixel-bomb': { contentType: 'image/jpeg', bytes: jpegPixelBomb },
  'jpeg-corrupt': { contentType: 'image/jpeg', bytes: jpegCorrupt },
};
