import { cpfCheckDigitsMatch, dniLetterMatches } from '../validators/check-digits';
import { type TextRange, matchesOf } from './text-range';

/**
 * One national identifier format. `pattern` finds candidates (a `g` flag is added when missing); it
 * must be linear (docs/SECURITY.md, Text matching): no lookbehind with unbounded repetition, so a
 * label the value needs before it is checked by `labelledAt` in code instead. `isValid`, when given,
 * receives the matched text and rejects look-alikes (checksums, reserved ranges). This is the hook
 * for formats the defaults do not cover: pass your own in `idFormats`.
 */
export interface IdFormat {
  readonly name: string;
  readonly pattern: RegExp;
  readonly isValid?: (value: string) => boolean;
  /** Whether the text before `start` allows the candidate there (reads at most ID_CONTEXT_REACH characters back). */
  readonly allowedAt?: (text: string, start: number) => boolean;
}

/** How far before a candidate `allowedAt` reads: a label and the spaces after it. */
export const ID_CONTEXT_REACH = 48;
/** The longest identifier the default formats match (a dotted CPF, a spaced NINO): 14 characters. */
export const LONGEST_ID_MATCH = 14;

/** The text right before `start`, at most ID_CONTEXT_REACH characters of it. */
function textBefore(text: string, start: number): string {
  return text.slice(Math.max(0, start - ID_CONTEXT_REACH), start);
}

/** Spanish DNI: 8 digits (optionally dotted 12.345.678) and a mod-23 check letter. */
export const ES_DNI: IdFormat = {
  name: 'es_dni',
  pattern: /(?<![\p{L}\p{N}])(?:\d{8}|\d{2}\.\d{3}\.\d{3})[ -]?[A-Za-z](?![\p{L}\p{N}])/gu,
  isValid: (value) => {
    const digits = value.replace(/\D/g, '');
    return dniLetterMatches(digits, value.slice(-1));
  },
};

/** Spanish NIE: X/Y/Z, 7 digits, check letter (X=0, Y=1, Z=2 prefixed before the mod-23 check). */
export const ES_NIE: IdFormat = {
  name: 'es_nie',
  pattern: /(?<![\p{L}\p{N}])[XYZxyz][ -]?\d{7}[ -]?[A-Za-z](?![\p{L}\p{N}])/gu,
  isValid: (value) => {
    const prefix = 'XYZ'.indexOf(value[0].toUpperCase());
    return dniLetterMatches(`${prefix}${value.replace(/\D/g, '')}`, value.slice(-1));
  },
};

/**
 * US SSN: hyphenated anywhere, or nine bare digits right after an "SSN" label. Area not 000, 666
 * or 9xx; group not 00; serial not 0000.
 */
export const US_SSN: IdFormat = {
  name: 'us_ssn',
  pattern: /(?<![\p{L}\p{N}_-])\d{3}-\d{2}-\d{4}(?![\p{L}\p{N}_]|-[\p{L}\p{N}])|(?<=(?<!\p{L})SSN[:#]?\s{0,2})\d{9}(?![\p{L}\p{N}_])/gu,
  isValid: (value) => {
    const digits = value.replace(/-/g, '');
    const [area, group, serial] = [digits.slice(0, 3), digits.slice(3, 5), digits.slice(5)];
    return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
  },
};

// HMRC: first letter not D F I Q U V, second not D F I O Q U V, some pairs never issued.
const NINO_UNISSUED_PREFIXES = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);

/** UK National Insurance number: AB 12 34 56 C (spaces optional), suffix A-D. */
export const UK_NINO: IdFormat = {
  name: 'uk_nino',
  pattern: /(?<![\p{L}\p{N}])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\p{L}\p{N}])/giu,
  isValid: (value) => !NINO_UNISSUED_PREFIXES.has(value.slice(0, 2).toUpperCase()),
};

// "CPF", "CPF nº", "CPF número", then an optional ":" or "#", right before the eleven digits. Read on
// ID_CONTEXT_REACH characters at most, so the unbounded spaces cost nothing per position.
const CPF_LABEL_BEFORE = /(?:^|\P{L})CPF(?:\s*n(?:[º°o]\.?|[uú]mero))?(?:\s*[:#])?\s*$/iu;

/**
 * Brazilian CPF: 123.456.789-09 anywhere, or eleven bare digits right after a "CPF" label (bare,
 * they are too often phone numbers or serials). Both mod-11 check digits must hold.
 */
export const BR_CPF: IdFormat = {
  name: 'br_cpf',
  pattern: /(?<![\p{L}\p{N}.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\p{L}\p{N}]|[.-]\p{N})|(?<!\p{N})\d{11}(?![\p{L}\p{N}_])/gu,
  isValid: (value) => cpfCheckDigitsMatch(value.replace(/\D/g, '')),
  allowedAt: (text, start) => text[start + 3] === '.' || CPF_LABEL_BEFORE.test(textBefore(text, start)),
};

/** Formats detected when the caller does not choose: Spanish DNI and NIE, US SSN, UK NINO, Brazilian CPF. */
export const DEFAULT_ID_FORMATS: readonly IdFormat[] = [ES_DNI, ES_NIE, US_SSN, UK_NINO, BR_CPF];

/** Ranges of identifiers matching any of the given formats. */
export function findIdNumbers(text: string, formats: readonly IdFormat[]): TextRange[] {
  const found: TextRange[] = [];
  for (const format of formats) {
    for (const m of matchesOf(format.pattern, text)) {
      if (format.isValid && !format.isValid(m[0])) continue;
      if (format.allowedAt && !format.allowedAt(text, m.index)) continue;
      found.push({ start: m.index, end: m.index + m[0].length });
    }
  }
  return found;
}
