/**
 * The shape a JSON body may have, checked on its bytes as they arrive and before it is parsed, so
 * that no parse or walk of it (validation, a copy, a schema library) recurses past the stack or
 * spends seconds on members no schema admits.
 *
 * - MAX_JSON_DEPTH: deeper than any body of the API (a machine event's data, a tool's schema).
 *   Also the depth `assertStorable` (api/validation.ts) walks to.
 * - MAX_JSON_MEMBERS: members of one array or object; the longest array a schema admits is a batch
 *   of 500 readings. Joi validates an array's items before its length: 20 000 valid readings past
 *   the batch's maximum took 0.5 s of the event loop, 2 000 about 50 ms.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_MEMBERS = 2_000;

export type JsonShapeExcess = 'depth' | 'members' | null;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];
const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * One linear pass over the UTF-8 bytes of JSON text, fed in pieces of any size: brackets and commas
 * inside strings (escapes included) not counted. Every byte it counts is ASCII, which UTF-8 never
 * uses inside a multi-byte character, so the bytes give the verdict the decoded text would.
 * Malformed text is left to the parser; this only says whether it may be parsed at all.
 */
export class JsonShapeScan {
  /** The first bound the text exceeds, if any (the scan stops counting there). */
  excess: JsonShapeExcess = null;
  /** Whether the text opens with `[` or `{` after whitespace and a byte order mark; undefined until a byte says. */
  opensContainer: boolean | undefined;
  // commas[d]: separators seen in the open container at depth d (its members, less one).
  private readonly commas: number[] = [0];
  private depth = 0;
  private inString = false;
  private escaped = false;
  private seen = 0;
  private markBytes = 0;

  constructor(
    private readonly maxDepth = MAX_JSON_DEPTH,
    private readonly maxMembers = MAX_JSON_MEMBERS,
  ) {}

  feed(bytes: Uint8Array): this {
    for (let i = 0; i < bytes.length && this.excess === null; i++) this.step(bytes[i]!);
    return this;
  }

  private step(c: number): void {
    if (this.opensContainer === undefined) this.opening(c);
    this.seen++;
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) this.inString = false;
    } else if (c === QUOTE) this.inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++this.depth > this.maxDepth) this.excess = 'depth';
      else this.commas[this.depth] = 0;
    } else if (c === 0x5d || c === 0x7d) this.depth--;
    else if (c === 0x2c && this.depth > 0 && ++this.commas[this.depth]! >= this.maxMembers) this.excess = 'members';
  }

  /** As a UTF-8 decoder and then `^[ \t\n\r]*[[{]` would judge it: a whole mark at the start is dropped, a broken one is a character. */
  private opening(c: number): void {
    const allMarkSoFar = this.seen === this.markBytes && this.markBytes < BYTE_ORDER_MARK.length;
    if (allMarkSoFar && c === BYTE_ORDER_MARK[this.markBytes]) this.markBytes++;
    else if (this.markBytes > 0 && this.markBytes < BYTE_ORDER_MARK.length) this.opensContainer = false;
    else if (!isJsonSpace(c)) this.opensContainer = c === 0x5b || c === 0x7b;
  }
}

/** What of the bounds JSON text exceeds first, if any (see JsonShapeScan). */
export function jsonShapeExcess(text: string, maxDepth = MAX_JSON_DEPTH, maxMembers = MAX_JSON_MEMBERS): JsonShapeExcess {
  return new JsonShapeScan(maxDepth, maxMembers).feed(Buffer.from(text, 'utf8')).excess;
}
