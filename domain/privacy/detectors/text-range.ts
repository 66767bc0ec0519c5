/** A half-open range [start, end) of UTF-16 code units in the scanned text. */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Letter, digit or underscore in any script: the characters that glue a value to a longer token. */
export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch);
}

// WhatsApp writes a phone number's international digits without their "+" in its own links and vCards.
const WHATSAPP_BEFORE = /(?:waid=|wa\.me\/|[?&]phone=)$/i;

/** The digits at `start` follow `waid=`, `wa.me/` or `phone=`: a phone number, whatever else they pass. */
export function followsWhatsAppLink(text: string, start: number): boolean {
  return WHATSAPP_BEFORE.test(text.slice(Math.max(0, start - 8), start));
}

/** Every match of a global regular expression, as ranges plus the match itself. */
export function* matchesOf(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  const re = new RegExp(pattern.source, flags);
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex += 1;
      continue;
    }
    yield m;
  }
}
