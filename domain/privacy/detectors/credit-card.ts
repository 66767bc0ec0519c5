import { passesLuhn } from '../validators/check-digits';
import { type TextRange, followsWhatsAppLink, matchesOf } from './text-range';

export interface CardOptions {
  /** Also require a known issuer prefix (Visa, Mastercard, Amex, Diners, Discover, JCB, UnionPay, Maestro, Mir, Troy, UATP). */
  readonly requireKnownIin: boolean;
}

// 13..19 digits, optionally grouped by one kind of separator (a space of any width, a hyphen, a
// dot), and the whole digit run: never a slice of a longer number (IBAN, reference), except that an
// expiry may follow ("... 1111 12/27").
const SEPARATOR = String.raw`[ .\-\u00a0\u2007\u2009\u202f]`;
const EXPIRY = String.raw`(?:0[1-9]|1[0-2])\/\d{2}(?!\d)`;
/** 19 digits and 18 separators. */
export const LONGEST_CARD_MATCH = 37;
// A "+" before the digits makes them an international phone number (+4915112345678), never a card.
const CANDIDATE = new RegExp(String.raw`(?<![\p{L}\p{N}_+]|\d${SEPARATOR})\d(?:${SEPARATOR}?\d){12,18}(?![\p{L}\p{N}_]|[.,/]\d|${SEPARATOR}(?!${EXPIRY})\d)`, 'gu');

// An OCR'd card: each digit spaced, the four groups of four apart by two spaces
// ("6 4 4 9  1 8 3 7  2 0 6 1  5 4 7 5"). Sixteen digits only, and always a known issuer besides
// Luhn: a spaced run is as likely a reading dictated digit by digit.
const LETTER_SPACED = /(?<![\p{L}\p{N}_+]|\d {1,2})\d(?: \d){3}(?: {2}\d(?: \d){3}){3}(?![\p{L}\p{N}_]| {1,2}\d)/gu;

// Issuer prefixes and the lengths each issues. A Luhn-valid 15-digit IMEI starting 35 is not a JCB
// card (JCB is 16-19), so the length matters as much as the prefix.
// UATP (the airlines' card: major industry identifier 1, always 15 digits) is taken only grouped as
// printed: fifteen compact digits led by 1 are as often a French NIR, whose key leaves Luhn to chance.
const ISSUERS: ReadonlyArray<{ readonly prefix: RegExp; readonly lengths: readonly [number, number]; readonly groupedOnly?: true }> = [
  { prefix: /^4/, lengths: [13, 19] }, // Visa (13, 16, 19)
  { prefix: /^3[47]/, lengths: [15, 15] }, // Amex
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 19] }, // Diners Club
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 19] }, // JCB
  { prefix: /^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, lengths: [16, 16] }, // Mastercard
  { prefix: /^(?:50|5[6-9]|6)/, lengths: [13, 19] }, // Maestro, Discover, UnionPay
  { prefix: /^220[0-4]/, lengths: [16, 19] }, // Mir
  { prefix: /^9792/, lengths: [16, 16] }, // Troy (its 65 range is Discover's, above)
  { prefix: /^1/, lengths: [15, 15], groupedOnly: true }, // UATP
];

function hasKnownIssuer(digits: string, grouped: boolean): boolean {
  return ISSUERS.some(({ prefix, lengths: [min, max], groupedOnly }) => prefix.test(digits) && digits.length >= min && digits.length <= max && (grouped || !groupedOnly));
}

function hasCardGrouping(value: string): boolean {
  const separators = new Set(value.replace(/\d/g, ''));
  if (separators.size === 0) return true;
  if (separators.size > 1) return false;
  const groups = value.split(/\D/);
  // Printed cards group by 4 or 4-6-5 / 4-6-4 (Amex, Diners); a 14- to 19-digit number grouped by 4
  // leaves what is over in a short last group (4-4-4-4-1, 4-4-4-4-3, 4-4-4-2); copied from
  // statements and card readers they also come as two halves of 8 (8-8, 8-8-3).
  if (groups.length <= 3 && groups[0].length === 8 && groups[1].length === 8 && (groups[2] ?? '123').length === 3) return true;
  return groups.every((group, i) => group.length <= 6 && group.length >= (i === groups.length - 1 ? 1 : 3));
}

/** Ranges of payment card numbers: right length, card-like grouping, Luhn-valid. */
export function findCreditCards(text: string, options: CardOptions): TextRange[] {
  const found: TextRange[] = [];
  for (const m of matchesOf(CANDIDATE, text)) {
    const range = { start: m.index, end: m.index + m[0].length };
    // "waid=4915112345678" is a phone number even when its digits pass Luhn.
    if (followsWhatsAppLink(text, m.index)) continue;
    const digits = m[0].replace(/\D/g, '');
    if (!hasCardGrouping(m[0]) || !passesLuhn(digits)) continue;
    if (options.requireKnownIin && !hasKnownIssuer(digits, digits.length < m[0].length)) continue;
    found.push(range);
  }
  for (const m of matchesOf(LETTER_SPACED, text)) {
    const digits = m[0].replace(/\D/g, '');
    if (passesLuhn(digits) && hasKnownIssuer(digits, true)) found.push({ start: m.index, end: m.index + m[0].length });
  }
  return found.sort((a, b) => a.start - b.start);
}
