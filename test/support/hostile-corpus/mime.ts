/**
 * Hostile MIME messages, deterministic: thousands of parts, parts nested thousands deep, headers
 * of megabytes (one long header or thousands of lines), and transfer encodings that lie (base64
 * that is not, quoted-printable soft breaks without end, an unknown encoding). Each is a complete
 * message with a From address, so only its shape can be refused.
 */
const HEAD = 'From: Hostile Sender <sender@outside.example>\r\nTo: agent@plant.example\r\nSubject: hostile\r\nMIME-Version: 1.0\r\n';

function message(headers: string, body: string): Buffer {
  return Buffer.from(`${HEAD}${headers}\r\n${body}`, 'utf8');
}

/** A multipart/mixed message of `parts` small text parts. */
export function manyParts(parts: number): Buffer {
  const body: string[] = [];
  for (let i = 0; i < parts; i++) body.push(`--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`);
  return message('Content-Type: multipart/mixed; boundary=b\r\n', `${body.join('')}--b--\r\n`);
}

/** Multiparts nested `depth` deep, each with its own boundary, a text part at the bottom. */
export function nestedParts(depth: number): Buffer {
  let body = 'Content-Type: text/plain\r\n\r\nthe bottom\r\n';
  for (let i = depth - 1; i >= 0; i--) body = `Content-Type: multipart/mixed; boundary=n${i}\r\n\r\n--n${i}\r\n${body}--n${i}--\r\n`;
  const split = body.indexOf('\r\n\r\n');
  return message(body.slice(0, split + 2), body.slice(split + 4));
}

/** `bytes` of header in lines of 100 bytes (`X-Filler-N: vvv...`). */
export function headerLines(bytes: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i * 100 < bytes; i++) lines.push(`X-Filler-${i}: ${'v'.repeat(84 - String(i).length)}\r\n`);
  return message(`${lines.join('')}Content-Type: text/plain\r\n`, 'body\r\n');
}

/** One header of `bytes`, folded into continuation lines of 76 bytes. */
export function longHeader(bytes: number): Buffer {
  const folded = 'w'.repeat(bytes).replace(/.{76}/g, '$&\r\n ');
  return message(`X-Long: ${folded}\r\nContent-Type: text/plain\r\n`, 'body\r\n');
}

/** A Cc header of `addresses` addresses: address-list parsing is the costly kind of header. */
export function manyAddresses(addresses: number): Buffer {
  const list: string[] = [];
  for (let i = 0; i < addresses; i++) list.push(`user${i}@outside.example`);
  return message(`Cc: ${list.join(',\r\n ')}\r\nContent-Type: text/plain\r\n`, 'body\r\n');
}

/** The transfer encodings that lie, each a single-part message of about `bytes`. */
export const badTransferEncodings = {
  /** Declared base64, made of characters base64 does not have. */
  notBase64: (bytes: number) => message('Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n', `${'!@#$%^&*()'.repeat(bytes / 10).replace(/.{76}/g, '$&\r\n')}\r\n`),
  /** Quoted-printable that is nothing but soft line breaks and broken escapes. */
  brokenQuotedPrintable: (bytes: number) => message('Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n', `${'=\r\n=Z'.repeat(bytes / 5)}\r\n`),
  /** An encoding no standard names. */
  unknown: (bytes: number) => message('Content-Type: text/plain\r\nContent-Transfer-Encoding: x-hostile\r\n', `${'u'.repeat(bytes)}\r\n`),
  /** Binary bytes in a part declared 7bit, with NULs. */
  binaryAs7bit: (bytes: number) =>
    Buffer.concat([message('Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n', ''), Buffer.alloc(bytes, 0xff).fill(0, 0, bytes / 2)]),
};

/** A base64 attachment of `bytes` decoded bytes (about 4/3 of that encoded), beside a text part. */
export function largeAttachment(bytes: number): Buffer {
  const encoded = Buffer.alloc(bytes, 7).toString('base64').replace(/.{76}/g, '$&\r\n');
  return message(
    'Content-Type: multipart/mixed; boundary=a\r\n',
    `--a\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--a\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n${encoded}\r\n--a--\r\n`,
  );
}

/** An ordinary message: what the bounds must still let through. */
export function ordinary(text = 'The pump in hall 3 is leaking.'): Buffer {
  return message('Message-ID: <ordinary@outside.example>\r\nContent-Type: text/plain; charset=utf-8\r\n', `${text}\r\n`);
}
