import { NATIONAL_ID_KINDS, type NationalIdKind, isValidNationalId, ssnRangesHold } from '../validators/national-id';
import { continuesAnnouncedList, endsWithThingLabel, governingWords, idKindsNamedIn, isAnnouncedAsPhone, mentionsIdLabel, wordsBefore } from './context-words';
import { TABLE_REACH, TableColumns } from './table-columns';
import { findGroupedIds } from './grouped-id';
import { type TextRange, matchesOf } from './text-range';

/**
 * One national identifier format. `pattern` finds candidates (a `g` flag is added when missing); it
 * must be linear (docs/SECURITY.md, Text matching): no lookbehind with unbounded repetition, so a
 * label the value needs before it is checked by `allowedAt` in code instead. `isValid`, when given,
 * receives the matched text and rejects look-alikes (checksums, reserved ranges). This is the hook
 * for formats the defaults do not cover: pass your own in `idFormats`.
 */
export interface IdFormat {
  readonly name: string;
  readonly pattern: RegExp;
  readonly isValid?: (value: string) => boolean;
  /**
   * Whether the text around the candidate allows it there (reads at most ID_VERDICT_REACH
   * characters around it); `columns` reads the text's table headers (one per scan).
   */
  readonly allowedAt?: (text: string, start: number, value: string, columns: TableColumns) => boolean;
}

/** How far before a candidate `allowedAt` reads: a label and the spaces after it. */
export const ID_CONTEXT_REACH = 48;
/** How far around a candidate its verdict reads: its label, or its table column's header above it. */
export const ID_VERDICT_REACH = Math.max(ID_CONTEXT_REACH, TABLE_REACH);
/** The longest identifier found: eighteen characters (a CURP) letter-spaced by OCR, so seventeen separators (grouped-id.ts). */
export const LONGEST_ID_MATCH = 35;

/**
 * How much a candidate's own characters say, and so how much context it needs:
 * - `layout`: a layout only this identifier is written in (123-45-6789, 529.982.247-25, 2341 2341 2346)
 *   or a check over letters and digits that chance does not pass (DNI, NINO, NIR, CPF, Steuer-ID):
 *   taken unless a thing's label (order, serial, batch...) governs it; the codice fiscale and the
 *   CURP, sixteen and eighteen characters, are taken even then (they have no `allowedAt`);
 * - `weak_checksum`: nine or twelve bare digits with a one-in-ten check (BSN, NIF, Aadhaar): the
 *   checksum decides unless a phone word announces the number (one phone number in ten passes
 *   such a check; a number announced as a phone is one, and so is the next of a list it announces);
 * - `label_only`: no check digit at all (an SSN written with spaces or bare): only after an
 *   identifier's label.
 */
type Evidence = 'layout' | 'weak_checksum' | 'label_only';

function allowedBy(evidence: Evidence, text: string, start: number, value: string, columns: TableColumns): boolean {
  const words = governingWords(text, start, start + value.length, columns, ID_CONTEXT_REACH);
  if (mentionsIdLabel(words)) return true;
  if (evidence === 'label_only' || endsWithThingLabel(words)) return false;
  return evidence === 'layout' || (!isAnnouncedAsPhone(words) && !continuesAnnouncedList(text, start));
}

const byLayout = (text: string, start: number, value: string, columns: TableColumns) => allowedBy('layout', text, start, value, columns);

const validAs =
  (kind: NationalIdKind) =>
  (value: string): boolean =>
    isValidNationalId(kind, value);

// Guards shared by the digit formats: never a slice of a longer number or code, never glued to a
// URL, an address, a key or a "+" (wa.me/..., waid=..., x@..., +34...).
const DIGITS_BEFORE = String.raw`(?<![\p{L}\p{N}_@=/.+\-]|[\p{N}][ .\-\u00a0\u202f])`;
const DIGITS_AFTER = String.raw`(?![\p{L}\p{N}_]|[.\-/][\p{L}\p{N}]|[ \u00a0\u202f]\p{N})`;
const SPACE = String.raw`[ \u00a0\u2009\u202f]`;

/** One pattern from layouts, each a source between the digit guards. */
const digitLayouts = (...layouts: string[]) => new RegExp(String.raw`${DIGITS_BEFORE}(?:${layouts.join('|')})${DIGITS_AFTER}`, 'gu');

/**
 * Spanish DNI: 8 digits and a mod-23 check letter; bare, dotted (12.345.678-Z) or grouped by spaces
 * as it is dictated (12 345 678 Z, the letter then upper-case: a lower-case one is a word, "y", "a").
 */
export const ES_DNI: IdFormat = {
  name: 'es_dni',
  pattern: new RegExp(
    String.raw`(?<![\p{L}\p{N}]|\p{N}${SPACE})(?:(?:\d{8}|\d{2}\.\d{3}\.\d{3})[ -]?[A-Za-z]|\d{2}${SPACE}\d{3}${SPACE}\d{3}(?:${SPACE}|-)?[A-Z])(?![\p{L}\p{N}])`,
    'gu',
  ),
  isValid: validAs('es_dni'),
  allowedAt: byLayout,
};

/** Spanish NIE: X/Y/Z, 7 digits, check letter. */
export const ES_NIE: IdFormat = {
  name: 'es_nie',
  pattern: /(?<![\p{L}\p{N}])[XYZxyz][ -]?\d{7}[ -]?[A-Za-z](?![\p{L}\p{N}])/gu,
  isValid: validAs('es_nie'),
  allowedAt: byLayout,
};

/**
 * The same nine digits written in the SSN's own layout (123-45-6789) shortly before: "he gave
 * 412-67-3390 on the form; the copy shows 412 67 3390" repeats one value in another grouping.
 */
function ssnWrittenBefore(text: string, start: number, value: string): boolean {
  const digits = value.replace(/\D/g, '');
  return text.slice(Math.max(0, start - ID_VERDICT_REACH), start).includes(`${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`);
}

/**
 * US SSN: hyphenated anywhere; with spaces or bare only after an identifier's label (it has no
 * check digit), with spaces also after the same number hyphenated. The ranges hold (area not 000, 666 or 9xx;
 * group not 00; serial not 0000); an advertised number written as someone's (the Woolworth card's)
 * is redacted all the same.
 */
export const US_SSN: IdFormat = {
  name: 'us_ssn',
  pattern: /(?<![\p{L}\p{N}_.-])\d{3}([- ]?)\d{2}\1\d{4}(?![\p{L}\p{N}_]|[-.][\p{L}\p{N}])/gu,
  isValid: (value) => ssnRangesHold(value.replace(/\D/g, '')),
  allowedAt: (text, start, value, columns) =>
    value[3] === '-'
      ? allowedBy('layout', text, start, value, columns)
      : // Spaced only: bare nine digits fill tables, and each would read the text before it.
        allowedBy('label_only', text, start, value, columns) || (value[3] === ' ' && ssnWrittenBefore(text, start, value)),
};

/** UK National Insurance number: AB 12 34 56 C (spaces optional), suffix A-D, HMRC's prefix rules. */
export const UK_NINO: IdFormat = {
  name: 'uk_nino',
  pattern: /(?<![\p{L}\p{N}])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\p{L}\p{N}])/giu,
  isValid: validAs('uk_nino'),
  allowedAt: byLayout,
};

/** Brazilian CPF: 123.456.789-09, 123456789-09, 123 456 789 09 or eleven bare digits; both mod-11 check digits hold. */
export const BR_CPF: IdFormat = {
  name: 'br_cpf',
  pattern: digitLayouts(String.raw`\d{3}\.\d{3}\.\d{3}-\d{2}`, String.raw`\d{9}-\d{2}`, String.raw`\d{3}${SPACE}\d{3}${SPACE}\d{3}(?:${SPACE}|-)\d{2}`, String.raw`\d{11}`),
  isValid: validAs('br_cpf'),
  allowedAt: byLayout,
};

/**
 * German Steuer-ID: eleven digits, bare or 2-3-3-3 (by spaces, dots or hyphens, one kind); ISO 7064
 * check digit and the repetition rule, which together one number in about 260 passes by chance.
 */
export const DE_STEUER_ID: IdFormat = {
  name: 'de_steuer_id',
  pattern: digitLayouts(String.raw`\d{11}`, String.raw`\d{2}(${SPACE}|[.\-])\d{3}\1\d{3}\1\d{3}`),
  isValid: validAs('de_steuer_id'),
  allowedAt: byLayout,
};

/**
 * French NIR (numéro de sécurité sociale): 13 characters and a mod-97 key, bare, with the key apart
 * (1850578006084 36, as the carte Vitale prints it) or in its seven groups; Corsica as 2A/2B.
 */
export const FR_NIR: IdFormat = {
  name: 'fr_nir',
  pattern: digitLayouts(
    String.raw`[12]\d{4}(?:\d{2}|2[ABab])\d{6}${SPACE}?\d{2}`,
    String.raw`[12]${SPACE}\d{2}${SPACE}\d{2}${SPACE}(?:\d{2}|2[ABab])${SPACE}\d{3}${SPACE}\d{3}${SPACE}\d{2}`,
  ),
  isValid: (value) => new Set(value.replace(/[\dABab]/g, '')).size <= 1 && isValidNationalId('fr_nir', value),
  allowedAt: byLayout,
};

/**
 * Italian codice fiscale: 16 letters and digits (omocodia letters included), any case, check letter;
 * whole or in the groups it is read out in: surname, name, birth date and sex, place and check
 * (RSS MRA 85T10 A562S).
 */
const CF_BIRTH = String.raw`[\dL-NP-V]{2}[A-EHLMPR-T][\dL-NP-V]{2}`;
const CF_PLACE_CHECK = String.raw`[A-Z][\dL-NP-V]{3}[A-Z]`;
export const IT_CODICE_FISCALE: IdFormat = {
  name: 'it_codice_fiscale',
  pattern: new RegExp(
    String.raw`(?<![\p{L}\p{N}_])(?:[A-Z]{6}${CF_BIRTH}${CF_PLACE_CHECK}|[A-Z]{3}${SPACE}[A-Z]{3}${SPACE}${CF_BIRTH}${SPACE}${CF_PLACE_CHECK})(?![\p{L}\p{N}_])`,
    'giu',
  ),
  isValid: validAs('it_codice_fiscale'),
  // Sixteen letters and digits under a check: no thing's number is written so, so no thing's label
  // vetoes it ("Fattura intestata a Mario Rossi RSSMRA85T10A562S"), as in any grouping (grouped-id.ts).
};

/** Mexican CURP: 18 characters (name letters, birth date, sex, state, consonants, check digit). */
export const MX_CURP: IdFormat = {
  name: 'mx_curp',
  pattern: /(?<![\p{L}\p{N}_])[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z\d]\d(?![\p{L}\p{N}_])/giu,
  isValid: validAs('mx_curp'),
  // Eighteen characters under a check: self-evident, as the codice fiscale.
};

/** Dutch BSN: nine digits passing the eleven-test, bare, 3-3-3, or 4.2.3 as Dutch documents print it. */
export const NL_BSN: IdFormat = {
  name: 'nl_bsn',
  pattern: digitLayouts(String.raw`\d{4}\.\d{2}\.\d{3}`, String.raw`\d{3}${SPACE}\d{3}${SPACE}\d{3}`, String.raw`\d{9}`),
  isValid: validAs('nl_bsn'),
  allowedAt: (text, start, value, columns) => allowedBy(value[4] === '.' ? 'layout' : 'weak_checksum', text, start, value, columns),
};

/** Portuguese NIF of a person: nine digits starting 1-3, bare or 3-3-3, mod-11 check digit. */
export const PT_NIF: IdFormat = {
  name: 'pt_nif',
  pattern: digitLayouts(String.raw`\d{3}${SPACE}\d{3}${SPACE}\d{3}`, String.raw`\d{9}`),
  isValid: validAs('pt_nif'),
  allowedAt: (text, start, value, columns) => allowedBy('weak_checksum', text, start, value, columns),
};

/** Indian Aadhaar: twelve digits, 4-4-4 as the card prints it (spaces or hyphens) or bare; Verhoeff check digit. */
export const IN_AADHAAR: IdFormat = {
  name: 'in_aadhaar',
  pattern: digitLayouts(String.raw`\d{4}${SPACE}\d{4}${SPACE}\d{4}`, String.raw`\d{4}-\d{4}-\d{4}`, String.raw`\d{12}`),
  isValid: validAs('in_aadhaar'),
  allowedAt: (text, start, value, columns) => allowedBy(value.length > 12 ? 'layout' : 'weak_checksum', text, start, value, columns),
};

/** Formats detected when the caller does not choose: twelve national identifiers of people. */
export const DEFAULT_ID_FORMATS: readonly IdFormat[] = [ES_DNI, ES_NIE, US_SSN, UK_NINO, BR_CPF, DE_STEUER_ID, FR_NIR, IT_CODICE_FISCALE, MX_CURP, NL_BSN, PT_NIF, IN_AADHAAR];

// "Z0456789Z (NIE) y 16543210T": a bracketed label right after the previous value names that value.
const PREVIOUS_VALUE_TAIL = /^\p{L}*\s?[([][^()[\]]*[)\]]/u;

/**
 * The words that may name a value: its column's header in a table, else the words before it
 * without the bracketed label of a value before them.
 */
function ownWordsBefore(text: string, start: number, end: number, columns: TableColumns): string {
  const header = columns.headerOf(start, end);
  if (header !== null) return header;
  const words = wordsBefore(text, start, ID_CONTEXT_REACH);
  const from = start - words.length;
  return from > 0 && /\d/.test(text[from - 1]) ? words.replace(PREVIOUS_VALUE_TAIL, '') : words;
}

/**
 * Whether a format may claim a value whose words before name identifier kinds: only a named kind's
 * format may (a caller's own format is named by its `name`). A label names what the value is; a
 * value that fails that kind's check is a wrong number of that kind, not another country's id.
 */
function claimableBy(name: string, text: string, range: TextRange, named: Map<number, ReadonlySet<string> | null>, columns: TableColumns): boolean {
  if (!named.has(range.start)) named.set(range.start, idKindsNamedIn(ownWordsBefore(text, range.start, range.end, columns)));
  const kinds = named.get(range.start);
  return !kinds || kinds.has(name);
}

const isNationalIdKind = (name: string): name is NationalIdKind => (NATIONAL_ID_KINDS as readonly string[]).includes(name);

/**
 * Ranges of identifiers matching any of the given formats, and of the default kinds among them
 * written in any other grouping (grouped-id.ts).
 */
export function findIdNumbers(text: string, formats: readonly IdFormat[]): TextRange[] {
  const found: TextRange[] = [];
  const named = new Map<number, ReadonlySet<string> | null>();
  const columns = new TableColumns(text);
  for (const format of formats) {
    for (const m of matchesOf(format.pattern, text)) {
      if (format.isValid && !format.isValid(m[0])) continue;
      if (format.allowedAt && !format.allowedAt(text, m.index, m[0], columns)) continue;
      if (!claimableBy(format.name, text, { start: m.index, end: m.index + m[0].length }, named, columns)) continue;
      found.push({ start: m.index, end: m.index + m[0].length });
    }
  }
  const kinds = formats
    .filter((f) => DEFAULT_ID_FORMATS.includes(f))
    .map((f) => f.name)
    .filter(isNationalIdKind);
  if (kinds.length > 0)
    found.push(...findGroupedIds(text, { kinds, reach: ID_CONTEXT_REACH, columns, claimable: (kind, range) => claimableBy(kind, text, range, named, columns) }));
  return found;
}
