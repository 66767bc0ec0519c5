/**
 * The built-in extraction engine (issue 8; DESIGN.md, Language models): patterns per field type and
 * labels next to values, deterministic and explainable. Every result says `engine: 'built-in'`.
 *
 * Confidence says how a value was found (docs/decisions/extraction-engines.md):
 *  - LABELLED 0.95: right after one of the field's labels on the same line ("Invoice date: 05/03/2026");
 *  - NEXT_LINE 0.85: on the line below a label that stands alone;
 *  - IN_LINE 0.7: later on a label's line, not right after it ("Total VAT (21%): 214.26" for "total");
 *  - TYPE_ONLY 0.3..0.5: no label found, first value of the field's type in the text (dates, e-mails,
 *    phones, currency amounts for money-named numbers, enum values); 0 and null when nothing fits.
 * Between candidates the higher confidence wins, then the longer (more specific) label, then the earlier.
 */
import { labelsFor, LabelWindow, labelWindows } from './labels';
import type { ArrayItemType, ExtractedFields, FieldResult, FieldValue, SourceSpan, TemplateField } from './types';
import { emptyField } from './types';
import { coerceItem, findAmounts, findBooleans, findDates, findEmailValues, findEnumValues, findIdentifiers, findNumbers, findPhoneValues, Found } from './values';

export const CONFIDENCE = { LABELLED: 0.95, NEXT_LINE: 0.85, IN_LINE: 0.7, TYPE_ONLY_EMAIL: 0.5, TYPE_ONLY_ENUM: 0.5, TYPE_ONLY: 0.4, TYPE_ONLY_AMBIGUOUS: 0.3 } as const;

/** What kind of text a string field holds, from its name and instructions. */
export type StringKind = 'email' | 'phone' | 'identifier' | 'text';

export function stringKind(field: Pick<TemplateField, 'name' | 'instructions'>): StringKind {
  const words = `${field.name.replace(/_/g, ' ')} ${field.instructions ?? ''}`.toLowerCase();
  if (/\be-?mail\b/.test(words)) return 'email';
  if (/\b(phone|telephone|tel|mobile|fax)\b/.test(words)) return 'phone';
  const last = field.name.split('_').pop() ?? '';
  if (['number', 'no', 'id', 'ref', 'reference', 'code', 'tag'].includes(last) || /\bidentifier\b/.test(words)) return 'identifier';
  return 'text';
}

const MONEY_WORDS = /\b(amount|total|price|cost|sum|vat|tax|subtotal|balance|fee)\b/;

/** The first value of the field's type in `text` (offsets relative to it); arrays are handled apart. */
function firstOfType(field: TemplateField, text: string): Found<FieldValue> | undefined {
  switch (field.type) {
    case 'date':
      return findDates(text)[0];
    case 'number':
      return findNumbers(text)[0];
    case 'boolean':
      return findBooleans(text)[0];
    case 'enum':
      return findEnumValues(text, field.values)[0];
    case 'array':
      return undefined;
    case 'string': {
      const kind = stringKind(field);
      if (kind === 'email') return findEmailValues(text)[0];
      if (kind === 'phone') return findPhoneValues(text)[0];
      if (kind === 'identifier') return findIdentifiers(text)[0];
      const trimmed = text.trim();
      if (trimmed === '') return undefined;
      const lead = text.length - text.trimStart().length;
      return { start: lead, end: lead + trimmed.length, value: trimmed };
    }
  }
}

interface Candidate {
  value: FieldValue;
  start: number;
  end: number;
  confidence: number;
  specificity: number;
}

// The item starts at its first non-blank character; its trailing blanks are cut in code, not by a
// `.*\S[ \t]*$` whose blanks the marker's `[ \t]+` could trade (quadratic on a line of blanks).
const BULLET = /^[ \t]*(?:[-*•·]|\d{1,3}[.)])[ \t]+(\S.*)$/;

/** The item of a bulleted or numbered line ("- pump", "2) valve") without its trailing blanks; null when the line is none. */
function bulletItem(line: string): string | null {
  const item = BULLET.exec(line)?.[1];
  if (item === undefined) return null;
  let end = item.length;
  while (item[end - 1] === ' ' || item[end - 1] === '\t') end -= 1;
  return /\S/.test(item[end - 1]) ? item.slice(0, end) : null;
}

function parseItems(parts: Array<{ text: string; start: number }>, items: ArrayItemType): Array<string | number> {
  return parts.map((p) => coerceItem(p.text, items)).filter((v): v is string | number => v !== undefined);
}

/** A list after a label: comma/semicolon-separated on its line, or bulleted/numbered lines below it. */
function arrayCandidate(text: string, w: LabelWindow, items: ArrayItemType): Omit<Candidate, 'confidence' | 'specificity'> | null {
  if (w.sameLine) {
    const line = text.slice(w.start, w.end);
    const sep = line.includes(';') ? ';' : ',';
    const values = parseItems(
      line.split(sep).map((t) => ({ text: t, start: 0 })),
      items,
    );
    const trimmedEnd = w.start + line.trimEnd().length;
    return values.length > 0 ? { value: values, start: w.start, end: trimmedEnd } : null;
  }
  const parts: Array<{ text: string; start: number }> = [];
  // From the start of the first item's line, line by line while they are bullets.
  let pos = text.lastIndexOf('\n', w.start - 1) + 1;
  let end = pos;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const e = nl === -1 ? text.length : nl;
    const item = bulletItem(text.slice(pos, e));
    if (item === null) break;
    parts.push({ text: item, start: pos });
    end = pos + text.slice(pos, e).trimEnd().length;
    pos = e + 1;
  }
  const values = parseItems(parts, items);
  return values.length > 0 ? { value: values, start: w.start, end } : null;
}

function labelledCandidate(field: TemplateField, text: string, w: LabelWindow): Candidate | null {
  if (field.type === 'array') {
    const found = arrayCandidate(text, w, field.items);
    return found ? { ...found, confidence: w.sameLine ? CONFIDENCE.LABELLED : CONFIDENCE.NEXT_LINE, specificity: w.specificity } : null;
  }
  const windowText = text.slice(w.start, w.end);
  const found = firstOfType(field, windowText);
  if (!found) return null;
  const anchored = windowText.slice(0, found.start).trim() === '';
  const confidence = !anchored ? CONFIDENCE.IN_LINE : w.sameLine ? CONFIDENCE.LABELLED : CONFIDENCE.NEXT_LINE;
  return { value: found.value, start: w.start + found.start, end: w.start + found.end, confidence, specificity: w.specificity };
}

function typeOnlyCandidate(field: TemplateField, text: string): Candidate | null {
  const at = (f: Found<FieldValue> | undefined, confidence: number): Candidate | null => (f ? { value: f.value, start: f.start, end: f.end, confidence, specificity: 0 } : null);
  switch (field.type) {
    case 'date':
      return at(findDates(text)[0], CONFIDENCE.TYPE_ONLY);
    case 'number':
      return MONEY_WORDS.test(field.name.replace(/_/g, ' ')) ? at(findAmounts(text)[0], CONFIDENCE.TYPE_ONLY_AMBIGUOUS) : null;
    case 'enum': {
      const found = findEnumValues(text, field.values);
      const distinct = new Set(found.map((f) => f.value)).size;
      return at(found[0], distinct === 1 ? CONFIDENCE.TYPE_ONLY_ENUM : CONFIDENCE.TYPE_ONLY_AMBIGUOUS);
    }
    case 'string': {
      const kind = stringKind(field);
      if (kind === 'email') return at(findEmailValues(text)[0], CONFIDENCE.TYPE_ONLY_EMAIL);
      if (kind === 'phone') return at(findPhoneValues(text)[0], CONFIDENCE.TYPE_ONLY);
      return null;
    }
    default:
      return null;
  }
}

const better = (a: Candidate, b: Candidate | null): boolean =>
  !b || a.confidence > b.confidence || (a.confidence === b.confidence && (a.specificity > b.specificity || (a.specificity === b.specificity && a.start < b.start)));

/** One field from `text`; spans are offset by `base` (the chunk's position in the whole document). */
export function extractField(field: TemplateField, text: string, base = 0): FieldResult {
  let best: Candidate | null = null;
  for (const w of labelWindows(text, labelsFor(field))) {
    const c = labelledCandidate(field, text, w);
    if (c && better(c, best)) best = c;
  }
  best ??= typeOnlyCandidate(field, text);
  if (!best) return emptyField('built-in');
  const source: SourceSpan = { start: base + best.start, end: base + best.end, text: text.slice(best.start, best.end) };
  return { value: best.value, confidence: best.confidence, source, engine: 'built-in' };
}

/** Every field of the template from one chunk of text starting at `base` in the document. */
export function extractBuiltIn(fields: readonly TemplateField[], text: string, base = 0): ExtractedFields {
  return Object.fromEntries(fields.map((f) => [f.name, extractField(f, text, base)]));
}
