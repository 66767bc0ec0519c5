// Check-digit and structure validators for national personal identifiers. Pure: a detector
// (detectors/id-number.ts) finds a candidate, a validator decides.
//
// Each kind is validated by the `stdnum` package (python-stdnum's rules, ported), with two things
// added here: one compaction of the separators people write (spaces of every width, dots, hyphens,
// slashes), and a length bound before any work, so a validator costs O(1) whatever it is handed.
import * as brCpf from 'stdnum/lib/cjs/br/cpf';
import * as deIdnr from 'stdnum/lib/cjs/de/idnr';
import * as esDni from 'stdnum/lib/cjs/es/dni';
import * as esNie from 'stdnum/lib/cjs/es/nie';
import * as frNir from 'stdnum/lib/cjs/fr/nir';
import * as gbNino from 'stdnum/lib/cjs/gb/nino';
import * as inAadhaar from 'stdnum/lib/cjs/in/aadhaar';
import * as itCodiceFiscale from 'stdnum/lib/cjs/it/codicefiscale';
import * as mxCurp from 'stdnum/lib/cjs/mx/curp';
import * as nlBsn from 'stdnum/lib/cjs/nl/bsn';
import * as ptNif from 'stdnum/lib/cjs/pt/nif';
import * as usSsn from 'stdnum/lib/cjs/us/ssn';

export type NationalIdKind =
  'br_cpf' | 'de_steuer_id' | 'es_dni' | 'es_nie' | 'fr_nir' | 'in_aadhaar' | 'it_codice_fiscale' | 'mx_curp' | 'nl_bsn' | 'pt_nif' | 'uk_nino' | 'us_ssn';

export interface NationalIdSpec {
  readonly kind: NationalIdKind;
  /** ISO 3166-1 alpha-2 of the issuing country. */
  readonly country: string;
  readonly name: string;
  /** Characters of the compact form (separators removed), for a detector's candidate filter. */
  readonly compactLength: readonly [min: number, max: number];
  /** True when the compact value passes the identifier's check digits and structure rules. */
  readonly isValidCompact: (compact: string) => boolean;
}

/** Longest written form any kind accepts (a NIR with its spaces is 21); longer input is refused unread. */
export const MAX_NATIONAL_ID_TEXT = 32;

// Spaces of every width (no-break, narrow no-break, thin, figure), dots, hyphens and slashes.
const SEPARATORS = /[\s.\-/\u00a0\u2007\u2009\u202f]/gu;

/** The value without the separators people write inside identifiers, upper-cased. */
export function compactNationalId(value: string): string {
  return value.replace(SEPARATORS, '').toUpperCase();
}

/**
 * stdnum answers an invalid value with an Error object; its stack trace is most of the cost of a
 * call (a detector asks about every nine-digit number of a text), and nobody reads it.
 */
const byStdnum =
  (validator: { validate: (value: string) => { isValid: boolean } }) =>
  (compact: string): boolean => {
    const depth = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return validator.validate(compact).isValid;
    } finally {
      Error.stackTraceLimit = depth;
    }
  };

/**
 * Steuer-ID: stdnum checks the length, the leading digit and the ISO 7064 MOD 11,10 check digit but
 * gets the repetition rule wrong (it accepts ten distinct digits, or one digit four times). The
 * rule (BZSt; de.wikipedia.org/wiki/Steuerliche_Identifikationsnummer): in the first ten digits
 * exactly one digit occurs twice or three times, every other digit at most once, and a digit that
 * occurs three times never three times in a row.
 */
function steuerIdDigitsRepeatRightly(compact: string): boolean {
  const counts = new Array<number>(10).fill(0);
  for (const ch of compact.slice(0, 10)) counts[ch.charCodeAt(0) - 48] += 1;
  const repeated = counts.filter((n) => n > 1);
  if (repeated.length !== 1 || repeated[0] > 3) return false;
  return !/(\d)\1\1/.test(compact.slice(0, 10));
}

/**
 * The SSN's ranges (SSA): area not 000, 666 or 900-999, group not 00, serial not 0000. stdnum adds
 * the numbers known to be advertised (the Woolworth wallet card's 078-05-1120...); a redactor takes
 * those as SSNs all the same, since people wrote them as their own.
 */
export function ssnRangesHold(compact: string): boolean {
  if (!/^\d{9}$/.test(compact)) return false;
  const [area, group, serial] = [compact.slice(0, 3), compact.slice(3, 5), compact.slice(5)];
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

/**
 * The BSN's eleven-test (9·d1 + 8·d2 + ... + 2·d8 - d9 divisible by 11), run before stdnum's: a
 * detector asks about every nine-digit number of a text, stdnum's call costs about 7 µs (it
 * normalises Unicode first), and ten numbers in eleven fail here; stdnum has the last word.
 */
function passesElevenTest(compact: string): boolean {
  if (!/^\d{9}$/.test(compact)) return false;
  let sum = -Number(compact[8]);
  for (let i = 0; i < 8; i++) sum += (9 - i) * Number(compact[i]);
  return sum % 11 === 0;
}

const SPECS: readonly NationalIdSpec[] = [
  // One digit eleven times passes both sums but is never issued; stdnum lets it through.
  { kind: 'br_cpf', country: 'BR', name: 'Brazilian CPF', compactLength: [11, 11], isValidCompact: (c) => !/^(\d)\1{10}$/.test(c) && byStdnum(brCpf)(c) },
  {
    kind: 'de_steuer_id',
    country: 'DE',
    name: 'German tax id (Steuer-ID, IdNr)',
    compactLength: [11, 11],
    isValidCompact: (compact) => /^\d{11}$/.test(compact) && byStdnum(deIdnr)(compact) && steuerIdDigitsRepeatRightly(compact),
  },
  { kind: 'es_dni', country: 'ES', name: 'Spanish DNI', compactLength: [9, 9], isValidCompact: byStdnum(esDni) },
  { kind: 'es_nie', country: 'ES', name: 'Spanish NIE', compactLength: [9, 9], isValidCompact: byStdnum(esNie) },
  { kind: 'fr_nir', country: 'FR', name: 'French NIR (social security number)', compactLength: [15, 15], isValidCompact: byStdnum(frNir) },
  { kind: 'in_aadhaar', country: 'IN', name: 'Indian Aadhaar', compactLength: [12, 12], isValidCompact: byStdnum(inAadhaar) },
  // 16 characters for people; stdnum also takes the 11-digit company form, which is not personal data.
  { kind: 'it_codice_fiscale', country: 'IT', name: 'Italian codice fiscale', compactLength: [16, 16], isValidCompact: (c) => c.length === 16 && byStdnum(itCodiceFiscale)(c) },
  { kind: 'mx_curp', country: 'MX', name: 'Mexican CURP', compactLength: [18, 18], isValidCompact: byStdnum(mxCurp) },
  // BSNs are nine digits; stdnum also accepts eight (a leading zero left out), which is how they are stored, rarely written.
  {
    kind: 'nl_bsn',
    country: 'NL',
    name: 'Dutch BSN',
    compactLength: [9, 9],
    isValidCompact: (c) => c.length === 9 && passesElevenTest(c) && byStdnum(nlBsn)(c),
  },
  // 1-3: people (4-5 and up are companies and public bodies, not personal data).
  { kind: 'pt_nif', country: 'PT', name: 'Portuguese NIF (people)', compactLength: [9, 9], isValidCompact: (c) => /^[1-3]/.test(c) && byStdnum(ptNif)(c) },
  // No check digit: HMRC's prefix rules and the A-D suffix are all there is (the suffix is required here).
  { kind: 'uk_nino', country: 'GB', name: 'UK National Insurance number', compactLength: [9, 9], isValidCompact: (c) => /^[A-Z]{2}\d{6}[A-D]$/.test(c) && byStdnum(gbNino)(c) },
  // No check digit either: area, group and serial ranges, and the numbers known to be published.
  { kind: 'us_ssn', country: 'US', name: 'US Social Security number', compactLength: [9, 9], isValidCompact: (c) => ssnRangesHold(c) && byStdnum(usSsn)(c) },
];

export const NATIONAL_IDS: Readonly<Record<NationalIdKind, NationalIdSpec>> = Object.fromEntries(SPECS.map((s) => [s.kind, s])) as Record<NationalIdKind, NationalIdSpec>;

export const NATIONAL_ID_KINDS: readonly NationalIdKind[] = SPECS.map((s) => s.kind);

/**
 * The latest answers: stdnum normalises and checks a value in a few microseconds, and a text names
 * the same identifiers (and the same nine-digit phone numbers, asked about as BSNs and NIFs) again
 * and again. Bounded; cleared whole when full.
 */
const RECENT_ANSWERS = 4096;
const recent = new Map<string, boolean>();

/** True when `value`, as written (separators allowed), is a valid identifier of `kind`. O(1): long input is refused unread. */
export function isValidNationalId(kind: NationalIdKind, value: string): boolean {
  if (value.length > MAX_NATIONAL_ID_TEXT) return false;
  const spec = NATIONAL_IDS[kind];
  const compact = compactNationalId(value);
  const [min, max] = spec.compactLength;
  if (compact.length < min || compact.length > max) return false;
  const key = `${kind} ${compact}`;
  let valid = recent.get(key);
  if (valid === undefined) {
    valid = spec.isValidCompact(compact);
    if (recent.size >= RECENT_ANSWERS) recent.clear();
    recent.set(key, valid);
  }
  return valid;
}

/** Every kind `value` is a valid identifier of (a nine-digit number may pass more than one). */
export function nationalIdKindsOf(value: string): NationalIdKind[] {
  return NATIONAL_ID_KINDS.filter((kind) => isValidNationalId(kind, value));
}
