/**
 * Typed values in text: where dates, amounts, identifiers, enum values and yes/no answers occur, and
 * what they mean. Used by the built-in engine (finding) and by corrections and model answers
 * (coercing a given value to a field's type). Pure.
 *
 * Conventions (docs/decisions/extraction-engines.md): numeric dates are day first (05/03/2026 is 5 March);
 * a number with both `.` and `,` uses the last one as decimal separator; a single `,` followed by
 * exactly three digits groups thousands (1,234), otherwise it is decimal (3,5); a single `.` is
 * always decimal (1.234 is 1.234), several dots group thousands (1.234.567).
 */
import { findEmails } from '../privacy/detectors/email';
import { findPhones } from '../privacy/detectors/phone';
import type { TextRange } from '../privacy/detectors/text-range';
import type { ArrayItemType } from './types';

export interface Found<T> extends TextRange {
  value: T;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_WORD = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const ORDINAL = '(?:st|nd|rd|th)?';
const NOT_WORD_BEFORE = String.raw`(?<![\p{L}\p{N}_])`;
const NOT_WORD_AFTER = String.raw`(?![\p{L}\p{N}_])`;

const DATE_PATTERNS: Array<{ re: RegExp; ymd: (m: RegExpExecArray) => [number, number, number] }> = [
  { re: new RegExp(String.raw`${NOT_WORD_BEFORE}(\d{4})-(\d{2})-(\d{2})(?!\p{N})`, 'gu'), ymd: (m) => [+m[1], +m[2], +m[3]] },
  { re: new RegExp(String.raw`${NOT_WORD_BEFORE}(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})(?!\p{N})`, 'gu'), ymd: (m) => [+m[3], +m[2], +m[1]] },
  {
    re: new RegExp(String.raw`${NOT_WORD_BEFORE}(\d{1,2})${ORDINAL}\s+(?:of\s+)?${MONTH_WORD},?\s+(\d{4})${NOT_WORD_AFTER}`, 'giu'),
    ymd: (m) => [+m[3], monthNumber(m[2]), +m[1]],
  },
  {
    re: new RegExp(String.raw`${NOT_WORD_BEFORE}${MONTH_WORD}\s+(\d{1,2})${ORDINAL},?\s+(\d{4})${NOT_WORD_AFTER}`, 'giu'),
    ymd: (m) => [+m[3], monthNumber(m[1]), +m[2]],
  },
];

function monthNumber(word: string): number {
  const w = word.toLowerCase().replace('.', '');
  return MONTHS.findIndex((m) => m.startsWith(w.slice(0, 3))) + 1;
}

function isoDate(y: number, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1) return null;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d > days) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function byPosition<T>(found: Found<T>[]): Found<T>[] {
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Calendar dates in the text, as ISO `yyyy-mm-dd`, in text order. */
export function findDates(text: string): Found<string>[] {
  const out: Found<string>[] = [];
  for (const { re, ymd } of DATE_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const value = isoDate(...ymd(m as RegExpExecArray));
      if (value) out.push({ start: m.index!, end: m.index! + m[0].length, value });
    }
  }
  return byPosition(out);
}

const CURRENCY = String.raw`[€$£¥]|(?:EUR|USD|GBP|CHF)${NOT_WORD_AFTER}`;
const NUMBER = new RegExp(String.raw`(?:(?:${CURRENCY})[ \u00a0]?)?(?<![\p{L}\p{N}_/.,\-])(-?\d(?:[\d.,]*\d)?)(?![\p{L}\p{N}_/]|[.,]\d)(?:[ \u00a0]?(?:${CURRENCY}))?`, 'gu');

/** The number a token such as `1,234.56`, `1.234,56`, `3,5` or `-12` writes; null when malformed. */
export function parseNumberToken(token: string): number | null {
  const negative = token.startsWith('-');
  const body = negative ? token.slice(1) : token;
  const dots = body.split('.').length - 1;
  const commas = body.split(',').length - 1;
  let decimalSep: '.' | ',' | null = null;
  if (dots > 0 && commas > 0) decimalSep = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
  else if (commas === 1) decimalSep = /,\d{3}$/.test(body) ? null : ',';
  else if (dots === 1) decimalSep = '.';
  const [intPart, fraction, ...rest] = decimalSep ? body.split(decimalSep) : [body];
  if (rest.length > 0 || (fraction !== undefined && !/^\d+$/.test(fraction))) return null;
  const groups = intPart.split(/[.,]/);
  if (groups.length > 1 && !(groups[0].length >= 1 && groups[0].length <= 3 && groups.slice(1).every((g) => /^\d{3}$/.test(g)))) return null;
  const value = Number(`${groups.join('')}${fraction !== undefined ? `.${fraction}` : ''}`);
  if (!Number.isFinite(value)) return null;
  return negative ? -value : value;
}

/** Numbers and amounts (with their currency symbol inside the span), in text order. */
export function findNumbers(text: string): Found<number>[] {
  const out: Found<number>[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const value = parseNumberToken(m[1]);
    if (value !== null) out.push({ start: m.index!, end: m.index! + m[0].length, value });
  }
  return out;
}

/** Amounts written with a currency symbol or code. */
export function findAmounts(text: string): Found<number>[] {
  const currency = new RegExp(CURRENCY, 'u');
  return findNumbers(text).filter((f) => currency.test(text.slice(f.start, f.end)));
}

// Document identifiers: a letter prefix and groups joined by - or /, with at least one digit
// (INV-2026-0042, WO-2026-0117, PUMP-07, PO/55/2026).
const IDENTIFIER = new RegExp(String.raw`${NOT_WORD_BEFORE}[A-Z][A-Z0-9]{0,11}(?:[-/][A-Z0-9]+)+${NOT_WORD_AFTER}`, 'gu');

export function findIdentifiers(text: string): Found<string>[] {
  return [...text.matchAll(IDENTIFIER)].filter((m) => /\d/.test(m[0])).map((m) => ({ start: m.index!, end: m.index! + m[0].length, value: m[0] }));
}

export function findEmailValues(text: string): Found<string>[] {
  return findEmails(text).map((r) => ({ ...r, value: text.slice(r.start, r.end) }));
}

export function findPhoneValues(text: string): Found<string>[] {
  return findPhones(text).map((r) => ({ ...r, value: text.slice(r.start, r.end) }));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Occurrences of the allowed values (case-insensitive, whole words), as the template spells them. */
export function findEnumValues(text: string, values: readonly string[]): Found<string>[] {
  const out: Found<string>[] = [];
  for (const value of values) {
    for (const m of text.matchAll(new RegExp(`${NOT_WORD_BEFORE}${escapeRe(value)}${NOT_WORD_AFTER}`, 'giu'))) {
      out.push({ start: m.index!, end: m.index! + m[0].length, value });
    }
  }
  return byPosition(out);
}

const BOOLEAN_WORDS: Record<string, boolean> = { yes: true, y: true, true: true, no: false, n: false, false: false };
const BOOLEAN = new RegExp(`${NOT_WORD_BEFORE}(yes|no|true|false|y|n)${NOT_WORD_AFTER}`, 'giu');

export function findBooleans(text: string): Found<boolean>[] {
  return [...text.matchAll(BOOLEAN)].map((m) => ({ start: m.index!, end: m.index! + m[0].length, value: BOOLEAN_WORDS[m[1].toLowerCase()] }));
}

/** A value given for a field (by a person or a model), coerced to the field's type; undefined when it does not fit. */
export function coerceDate(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const found = findDates(raw.trim());
  return found.length === 1 && found[0].start === 0 && found[0].end === raw.trim().length ? found[0].value : undefined;
}

export function coerceNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  const found = findNumbers(raw.trim());
  return found.length === 1 && found[0].start === 0 && found[0].end === raw.trim().length ? found[0].value : undefined;
}

export function coerceBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw !== 'string') return undefined;
  return BOOLEAN_WORDS[raw.trim().toLowerCase()];
}

export function coerceEnum(raw: unknown, values: readonly string[]): string | undefined {
  if (typeof raw !== 'string') return undefined;
  return values.find((v) => v.toLowerCase() === raw.trim().toLowerCase());
}

export function coerceItem(raw: unknown, items: ArrayItemType): string | number | undefined {
  if (items === 'number') return coerceNumber(raw);
  if (items === 'date') return coerceDate(raw);
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : typeof raw === 'number' ? String(raw) : undefined;
}
