import { matchesOf } from './text-range';

/** Stands in for masked characters: neither a digit nor a separator, so no phone run crosses it. */
export const MASK_CHAR = '\u0000';

const NO_DIGIT_BEFORE = String.raw`(?<![\d./\-])`;
const NO_DIGIT_AFTER = String.raw`(?!\d|[./\-]\d)`;

// Numerals that share digits and separators with phone numbers but are something else. Each one is
// validated (ranges) so that a phone written with dots or hyphens (06.12.34.56.78) is left alone:
// the look-arounds already refuse a match that is a slice of a longer digit run.
const ISO_DATETIME = /(?<!\d)\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?/g;
const DATE_YEAR_FIRST = new RegExp(String.raw`${NO_DIGIT_BEFORE}(\d{4})([/.\-])(\d{1,2})\2(\d{1,2})${NO_DIGIT_AFTER}`, 'g');
const DATE_DAY_FIRST = new RegExp(String.raw`${NO_DIGIT_BEFORE}(\d{1,2})([/.\-])(\d{1,2})\2(\d{4}|\d{2})${NO_DIGIT_AFTER}`, 'g');
const TIME = /(?<![\d:])\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?![\d:])/g;
const IPV4 = /(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/\d{1,2}|:\d{1,5})?(?!\d|\.\d)/g;
// An IBAN, whole or in groups of four (NL91 ABNA 0417 1643 00): country, check digits, account.
const IBAN = /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z\d]{4}){2,7}(?: ?[A-Z\d]{1,3})?(?![\p{L}\p{N}])/gu;

/** ISO 13616's mod-97 check: an IBAN's digits and letters (A = 10 ...) moved behind, remainder 1. */
function passesIbanCheck(written: string): boolean {
  const compact = written.replace(/ /g, '');
  let remainder = 0;
  for (const ch of compact.slice(4) + compact.slice(0, 4)) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : Number(ch);
    remainder = (value >= 10 ? remainder * 100 + value : remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

const isMonth = (n: number) => n >= 1 && n <= 12;
const isDay = (n: number) => n >= 1 && n <= 31;

type Matcher = { readonly pattern: RegExp; readonly accept: (m: RegExpExecArray) => boolean };

const MATCHERS: readonly Matcher[] = [
  { pattern: ISO_DATETIME, accept: () => true },
  {
    pattern: DATE_YEAR_FIRST,
    accept: (m) => Number(m[1]) >= 1900 && Number(m[1]) <= 2199 && isMonth(Number(m[3])) && isDay(Number(m[4])),
  },
  {
    // Day-first or US month-first: either order of day and month is a date.
    pattern: DATE_DAY_FIRST,
    accept: (m) => {
      const [a, b] = [Number(m[1]), Number(m[3])];
      return (isDay(a) && isMonth(b)) || (isMonth(a) && isDay(b));
    },
  },
  { pattern: TIME, accept: (m) => Number(m[0].split(':')[0]) <= 24 },
  // A first octet is never written with a leading zero: 044.098.35.96 is a Swiss phone number.
  { pattern: IPV4, accept: (m) => !/^0\d/.test(m[1]) && [m[1], m[2], m[3], m[4]].every((octet) => Number(octet) <= 255) },
  // An IBAN is never a phone number, whatever its account digits look like.
  { pattern: IBAN, accept: (m) => passesIbanCheck(m[0]) },
];

/**
 * The text with dates, times, ISO timestamps, IPv4 addresses and IBANs overwritten by MASK_CHAR. Same length
 * as the input, so offsets found in the masked text are offsets in the original.
 */
export function maskNonPhoneNumerals(text: string): string {
  const masked: Array<[start: number, end: number]> = [];
  for (const { pattern, accept } of MATCHERS) {
    for (const m of matchesOf(pattern, text)) if (accept(m)) masked.push([m.index, m.index + m[0].length]);
  }
  if (masked.length === 0) return text;
  // Built from slices (the matchers' ranges may overlap), not from an array of every character.
  masked.sort((a, b) => a[0] - b[0]);
  let out = '';
  let cursor = 0;
  for (const [start, end] of masked) {
    if (end <= cursor) continue;
    const from = Math.max(start, cursor);
    out += text.slice(cursor, from) + MASK_CHAR.repeat(end - from);
    cursor = end;
  }
  return out + text.slice(cursor);
}
