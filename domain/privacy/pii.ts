// PII redaction for stored transcripts and extracted text (SPEC.md "Retention and privacy settings").
// Pure and deterministic: no I/O, no Node modules, so workflows may import it.
import { findCreditCards } from './detectors/credit-card';
import { findEmails } from './detectors/email';
import { DEFAULT_ID_FORMATS, type IdFormat, findIdNumbers } from './detectors/id-number';
import { findPhones } from './detectors/phone';
import type { TextRange } from './detectors/text-range';

export { BR_CPF, DEFAULT_ID_FORMATS, ES_DNI, ES_NIE, UK_NINO, US_SSN, type IdFormat } from './detectors/id-number';
export { passesLuhn } from './detectors/credit-card';

export type PiiType = 'email' | 'phone' | 'id_number' | 'credit_card';

/**
 * Overlap precedence, strongest first: an e-mail's local part may be all digits, a card number or an
 * identifier can look like a phone number, so the more specific reading wins.
 */
export const PII_TYPES: readonly PiiType[] = ['email', 'credit_card', 'id_number', 'phone'];

/** What `pii.auto_redact` replaces in stored text: all four categories SPEC.md lists. */
export const AUTO_REDACT_TYPES: readonly PiiType[] = PII_TYPES;

export interface PiiFinding {
  readonly type: PiiType;
  /** Offsets in the original text, half-open [start, end). */
  readonly start: number;
  readonly end: number;
}

export interface RedactPiiOptions {
  /** Categories to replace; default all four (PII_TYPES). */
  readonly types?: readonly PiiType[];
  /** National identifier formats; default DEFAULT_ID_FORMATS (ES DNI/NIE, US SSN, UK NINO, BR CPF). */
  readonly idFormats?: readonly IdFormat[];
  /** Require a known issuer prefix on card numbers besides the Luhn check; default true. */
  readonly cardRequireKnownIin?: boolean;
}

export interface RedactPiiResult {
  readonly text: string;
  /** Replaced values, in text order. */
  readonly findings: readonly PiiFinding[];
}

export function redactionMarker(type: PiiType): string {
  return `[redacted:${type}]`;
}

function candidates(text: string, options: RedactPiiOptions): Record<PiiType, TextRange[]> {
  return {
    email: findEmails(text),
    credit_card: findCreditCards(text, { requireKnownIin: options.cardRequireKnownIin ?? true }),
    id_number: findIdNumbers(text, options.idFormats ?? DEFAULT_ID_FORMATS),
    phone: findPhones(text),
  };
}

/** Index of the first kept finding starting at or after `start` (kept is sorted and disjoint). */
function insertionIndex(kept: readonly PiiFinding[], start: number): number {
  let lo = 0;
  let hi = kept.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (kept[mid].start < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * PII values in the text, without overlaps. Every category is detected and the overlaps resolved by
 * PII_TYPES precedence (then earlier, then longer) before `types` filters: an SSN is never replaced
 * as a phone number just because id numbers were not asked for.
 */
export function detectPii(text: string, options: RedactPiiOptions = {}): PiiFinding[] {
  const byType = candidates(text, options);
  const kept: PiiFinding[] = []; // sorted by start, disjoint: only neighbours can overlap a newcomer
  for (const type of PII_TYPES) {
    const ranked = [...byType[type]].sort((a, b) => a.start - b.start || b.end - a.end);
    for (const { start, end } of ranked) {
      const i = insertionIndex(kept, start);
      const clashes = (i > 0 && kept[i - 1].end > start) || (i < kept.length && kept[i].start < end);
      if (!clashes) kept.splice(i, 0, { type, start, end });
    }
  }
  const wanted = new Set(options.types ?? PII_TYPES);
  return kept.filter((f) => wanted.has(f.type));
}

/** The text with each detected value replaced by `[redacted:<type>]`; surrounding context is kept. */
export function redactPii(text: string, options: RedactPiiOptions = {}): RedactPiiResult {
  const findings = detectPii(text, options);
  let out = '';
  let cursor = 0;
  for (const f of findings) {
    out += text.slice(cursor, f.start) + redactionMarker(f.type);
    cursor = f.end;
  }
  return { text: out + text.slice(cursor), findings };
}
