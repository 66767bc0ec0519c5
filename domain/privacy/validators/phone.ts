// Phone numbers read as written in messages, checked against the numbering plans that Google's
// libphonenumber keeps (through libphonenumber-js with its full "max" metadata: the same answers
// as google-libphonenumber on every number measured, a third of its size; docs/decisions/).
// Pure: no I/O. The detectors do not call it yet.
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

export type { CountryCode };

export interface PhoneReading {
  /** +<country code><national number>, no separators. */
  readonly e164: string;
  /** The region the number belongs to, when the plan says (a shared +1 or +7 number may not). */
  readonly country: CountryCode | undefined;
  /** Assigned ranges of the country's numbering plan (fixed, mobile, toll-free...): libphonenumber's isValid. */
  readonly valid: boolean;
  readonly extension: string | undefined;
}

export interface ReadPhoneOptions {
  /** How to read a number written without a country code (`0231 4425039`); without it such a number reads as null. */
  readonly defaultCountry?: CountryCode;
}

/** Longest written number read (a number with its extension and generous spacing); longer input is refused unread. */
export const MAX_PHONE_TEXT = 64;

// Invisible marks messaging apps wrap numbers in (WhatsApp's exports put U+202A..U+202C around
// them), and the spaces of every width typography puts between groups (French uses U+202F).
const BIDI_MARKS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const WIDE_SPACES = /[\u00a0\u2007\u2009\u202f]/gu;

/** The text libphonenumber is given: marks dropped, spaces made plain, `tel:` and the `00` prefix read as `+`. */
export function normalizeWrittenPhone(written: string): string {
  const text = written.replace(BIDI_MARKS, '').replace(WIDE_SPACES, ' ').trim();
  const withoutScheme = /^tel:/i.test(text) ? text.slice(4) : text;
  // 00 is the international prefix across Europe, Latin America and India; libphonenumber reads it
  // only with a default country whose prefix it is, a reader of messages from everywhere always.
  return withoutScheme.replace(/^00(?=[1-9])/, '+');
}

/** The number written in `written`, or null when it is no phone number at all. O(1): long input is refused unread. */
export function readPhone(written: string, options: ReadPhoneOptions = {}): PhoneReading | null {
  if (written.length > MAX_PHONE_TEXT) return null;
  const text = normalizeWrittenPhone(written);
  const parsed = parsePhoneNumberFromString(text, options.defaultCountry ? { defaultCountry: options.defaultCountry, extract: false } : { extract: false });
  if (!parsed) return null;
  return { e164: parsed.number, country: parsed.country, valid: parsed.isValid(), extension: parsed.ext };
}

/** True when `written` is a number in an assigned range of its country's plan. */
export function isValidPhone(written: string, options: ReadPhoneOptions = {}): boolean {
  return readPhone(written, options)?.valid ?? false;
}
