// PII redaction for stored transcripts and extracted text (SPEC.md "Retention and privacy settings").
// Pure and deterministic: no I/O, no Node modules, so workflows may import it.
import { findCreditCards } from './detectors/credit-card';
import { findEmails } from './detectors/email';
import { DEFAULT_ID_FORMATS, type IdFormat, findIdNumbers } from './detectors/id-number';
import { findPhones } from './detectors/phone';
import type { TextRange } from './detectors/text-range';
import { type Chunk, CHUNK_CHARS, chunksOf, windowOf } from './chunks';

export {
  BR_CPF,
  DEFAULT_ID_FORMATS,
  DE_STEUER_ID,
  ES_DNI,
  ES_NIE,
  FR_NIR,
  IN_AADHAAR,
  IT_CODICE_FISCALE,
  MX_CURP,
  NL_BSN,
  PT_NIF,
  UK_NINO,
  US_SSN,
  type IdFormat,
} from './detectors/id-number';
export { passesLuhn } from './validators/check-digits';

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
  /** National identifier formats; default DEFAULT_ID_FORMATS (twelve countries' identifiers of people). */
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

/** Every category's candidates that start in the chunk, found in the chunk's window (chunks.ts). */
function candidatesIn(text: string, chunk: Chunk, options: RedactPiiOptions): Record<PiiType, TextRange[]> {
  const window = windowOf(text, chunk);
  const whole = window.from === 0 && window.to === text.length;
  const found = candidates(whole ? text : text.slice(window.from, window.to), options);
  if (whole) return found;
  const inChunk = (ranges: TextRange[]) =>
    ranges.map((r) => ({ start: r.start + window.from, end: r.end + window.from })).filter((r) => r.start >= chunk.from && r.start < chunk.to);
  return { email: inChunk(found.email), credit_card: inChunk(found.credit_card), id_number: inChunk(found.id_number), phone: inChunk(found.phone) };
}

/**
 * `kept` (sorted by start, disjoint) with each of `ranges` added that overlaps neither `kept` nor
 * a range of the same type added before it (taken by start, then longer first). Linear after the
 * sort: both lists are walked once.
 */
function addWithoutOverlaps(kept: readonly PiiFinding[], type: PiiType, ranges: readonly TextRange[]): PiiFinding[] {
  const ranked = [...ranges].sort((a, b) => a.start - b.start || b.end - a.end);
  const added: PiiFinding[] = [];
  let k = 0; // the first kept finding that ends after the current start
  for (const { start, end } of ranked) {
    while (k < kept.length && kept[k].end <= start) k += 1;
    if (k < kept.length && kept[k].start < end) continue;
    if (added.length > 0 && added[added.length - 1].end > start) continue;
    added.push({ type, start, end });
  }
  const merged: PiiFinding[] = [];
  let [i, j] = [0, 0];
  while (i < kept.length || j < added.length) merged.push(j >= added.length || (i < kept.length && kept[i].start < added[j].start) ? kept[i++] : added[j++]);
  return merged;
}

/**
 * The scan of a text as steps: one chunk (chunks.ts) per step, so a caller can yield or check a
 * budget between them; the generator returns the findings (see `detectPii`).
 */
export function* detectPiiSteps(text: string, options: RedactPiiOptions = {}, chunkChars: number = CHUNK_CHARS): Generator<void, PiiFinding[]> {
  const byType: Record<PiiType, TextRange[]> = { email: [], credit_card: [], id_number: [], phone: [] };
  const chunks = chunksOf(text, chunkChars);
  for (const [index, chunk] of chunks.entries()) {
    const found = candidatesIn(text, chunk, options);
    for (const type of PII_TYPES) for (const range of found[type]) byType[type].push(range);
    if (index < chunks.length - 1) yield;
  }
  let kept: PiiFinding[] = [];
  for (const type of PII_TYPES) kept = addWithoutOverlaps(kept, type, byType[type]);
  const wanted = new Set(options.types ?? PII_TYPES);
  return kept.filter((f) => wanted.has(f.type));
}

/** Runs `steps` to its end without yielding. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * PII values in the text, without overlaps. Every category is detected and the overlaps resolved by
 * PII_TYPES precedence (then earlier, then longer) before `types` filters: an SSN is never replaced
 * as a phone number just because id numbers were not asked for. Linear in the text's length.
 */
export function detectPii(text: string, options: RedactPiiOptions = {}): PiiFinding[] {
  return runToEnd(detectPiiSteps(text, options));
}

/** The text with each finding replaced by `[redacted:<type>]`. */
export function applyRedaction(text: string, findings: readonly PiiFinding[]): string {
  const parts: string[] = [];
  let cursor = 0;
  for (const f of findings) {
    parts.push(text.slice(cursor, f.start), redactionMarker(f.type));
    cursor = f.end;
  }
  parts.push(text.slice(cursor));
  return parts.join('');
}

/** The text with each detected value replaced by `[redacted:<type>]`; surrounding context is kept. */
export function redactPii(text: string, options: RedactPiiOptions = {}): RedactPiiResult {
  const findings = detectPii(text, options);
  return { text: applyRedaction(text, findings), findings };
}
