// Phone numbers read as written in messages, checked against the numbering plans that Google's
// libphonenumber keeps (through libphonenumber-js with its full "max" metadata: the same answers
// as Google's own port on every number measured, a third of its size; docs/decisions/). The one
// phone reader of the service: the PII detectors and subjects named by a phone number use it.
// Pure: no I/O.
import { type CountryCode, type Examples, Metadata, type MetadataJson, PhoneNumber, getExampleNumber } from 'libphonenumber-js/core';
import examples from 'libphonenumber-js/examples.mobile.json';
import maxMetadata from 'libphonenumber-js/metadata.max.json';
import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';

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

/** Whether `code` is a country (ISO 3166-1 alpha-2, upper case) with a numbering plan to read national numbers by. */
export function isPhoneCountry(code: string): code is CountryCode {
  return isSupportedCountry(code);
}

/** True when `written` is a number in an assigned range of its country's plan. */
export function isValidPhone(written: string, options: ReadPhoneOptions = {}): boolean {
  return readPhone(written, options)?.valid ?? false;
}

// The detectors' checks, one per candidate, so they are the cheap ones: built from digits already
// read (no parsing of written text). isPossible is libphonenumber's own PhoneNumber; the national
// check runs libphonenumber's validity rule (getNumberType: the plan's general description, then
// one number type whose lengths and pattern match) on the same metadata with the patterns compiled
// once per country, since the library compiles every pattern on every call (50-120 µs a number
// against about 2 µs; test/unit/privacy/validators/phone.test.ts holds the answers equal).
// The JSON file's inferred type is wider than the library's declared one (strings, not country codes).
const metadata = maxMetadata as unknown as MetadataJson;
const plans = new Metadata(metadata);

/** True when `+<digits>` has a length its country's plan allows (unassigned ranges included: metadata ages, numbers stay personal). */
export function isPossibleInternational(digits: string): boolean {
  if (digits.length < 7 || digits.length > 15 || digits[0] === '0') return false;
  try {
    return new PhoneNumber(`+${digits}`, metadata).isPossible();
  } catch {
    return false;
  }
}

/** One number type of a plan (fixed line, mobile, toll free...): the lengths it has, when it says, and its pattern. */
interface NumberType {
  readonly lengths: ReadonlySet<number> | undefined;
  readonly pattern: RegExp;
}

/** How a country's numbers are written without the country code, and which are assigned. */
interface NationalWriting {
  readonly country: CountryCode;
  /** '0' where the national format writes the trunk prefix (0231 4425039), '' where it does not (612 34 56 78, (11) 91234-5678). */
  readonly trunk: string;
  /** A trunk prefix the national format leaves out but people may write (the NANP's 1-800-..., Brazil's 0). */
  readonly optionalTrunk: string;
  /** Lengths of a national number as written (the trunk prefix included). */
  readonly writtenLengths: ReadonlySet<number>;
  /** The plan's general description: every assigned number of the country matches it. */
  readonly general: RegExp;
  readonly types: readonly NumberType[];
}

/** What libphonenumber-js's numbering plan holds at run time beyond its declared type (pinned version; the test above checks it). */
interface PlanAtRunTime {
  possibleLengths(): number[];
  nationalNumberPattern(): string;
  nationalPrefix(): string | undefined;
  type(name: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
}

// getNumberType's order: a fixed-line match is valid whatever the others say.
const NUMBER_TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'];

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);
const writings = new Map<CountryCode, NationalWriting>();

/** Read from libphonenumber's plan and its national format of the country's example number, once per country. */
function writingOf(country: CountryCode): NationalWriting {
  const known = writings.get(country);
  if (known) return known;
  const example = getExampleNumber(country, examples as Examples, metadata);
  const written = example ? example.formatNational().replace(/\D/g, '') : '';
  const trunk = example && written.endsWith(example.nationalNumber) ? written.slice(0, written.length - example.nationalNumber.length) : '';
  plans.selectNumberingPlan(country);
  const plan = plans.numberingPlan as unknown as PlanAtRunTime;
  const types: NumberType[] = [];
  for (const name of NUMBER_TYPES) {
    const type = plan.type(name);
    if (!type || !type.pattern()) continue;
    const lengths = type.possibleLengths();
    types.push({ lengths: lengths ? new Set(lengths) : undefined, pattern: whole(type.pattern()) });
  }
  const writing = {
    country,
    trunk,
    optionalTrunk: trunk === '' ? (plan.nationalPrefix() ?? '') : '',
    writtenLengths: new Set(plan.possibleLengths().map((n) => n + trunk.length)),
    general: whole(plan.nationalNumberPattern()),
    types,
  };
  writings.set(country, writing);
  return writing;
}

/** libphonenumber's validity of a national significant number in the country: its getNumberType finds a type. */
function isAssignedIn(writing: NationalWriting, national: string): boolean {
  return writing.general.test(national) && writing.types.some((t) => (!t.lengths || t.lengths.has(national.length)) && t.pattern.test(national));
}

/**
 * True when `digits`, written without a country code, is an assigned number of one of `countries`
 * written as that country writes it: with the trunk prefix where its national format has one (so
 * 612345678 is Spanish, never French: France writes 06 12 34 56 78). Stops at the first country.
 */
export function isNationalNumberOf(digits: string, countries: readonly CountryCode[]): boolean {
  return countries.some((country) => {
    const writing = writingOf(country);
    const { trunk, optionalTrunk, writtenLengths } = writing;
    const written = optionalTrunk !== '' && digits.startsWith(optionalTrunk) && !writtenLengths.has(digits.length) ? digits.slice(optionalTrunk.length) : digits;
    return writtenLengths.has(written.length) && written.startsWith(trunk) && isAssignedIn(writing, written.slice(trunk.length));
  });
}
