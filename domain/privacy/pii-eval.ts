// Precision/recall of a PII detector against a labelled fixture. Pure: the caller reads the file.
//
// Matching rules:
// - Gold spans come from values, not offsets: a labelled value marks every occurrence of it in the
//   text, except occurrences inside a longer labelled value (so "612 345 678" inside a labelled
//   "+34 612 345 678" is not a second entity).
// - Strict scoring (the headline numbers): a prediction is a true positive only when type, start and
//   end all equal a gold span. A partial overlap counts as one false positive AND one false negative,
//   because a half-redacted phone number still leaks digits; same for a right span with a wrong type.
// - Partial overlaps of the same type are also counted separately (`partialOverlaps`) so near misses
//   (an extension left out, a trailing character taken) are visible without loosening the metric.
// - Look-alikes (optional, per line): values that are not personal data and must survive. One is
//   lost when any prediction overlaps any of its occurrences, whatever the prediction's type.
import { PII_TYPES, type PiiFinding, type PiiType } from './pii';

export interface LabelledEntity {
  readonly type: PiiType;
  readonly value: string;
  /** How the value is written (`spelled_words_en`, `area_in_parentheses`...), for the list of misses by form. */
  readonly form?: string;
}

/** A value that looks like personal data and is not: a redactor must leave it whole. */
export interface Lookalike {
  /** What it is (`firmware`, `luhn_fail`...). */
  readonly kind: string;
  readonly value: string;
}

export interface LabelledLine {
  readonly text: string;
  readonly entities: readonly LabelledEntity[];
  readonly lookalikes?: readonly Lookalike[];
}

export type PiiDetector = (text: string) => readonly PiiFinding[];

export interface PiiScore {
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  /** tp / (tp + fp); 1 when nothing was predicted. */
  readonly precision: number;
  /** tp / (tp + fn); 1 when nothing was labelled. */
  readonly recall: number;
  readonly f1: number;
}

export type PiiMiss =
  | { readonly kind: 'false_negative'; readonly line: number; readonly type: PiiType; readonly value: string; readonly form?: string }
  | { readonly kind: 'false_positive'; readonly line: number; readonly type: PiiType; readonly value: string };

export interface LookalikeLoss {
  readonly line: number;
  readonly kind: string;
  readonly value: string;
  /** What the redactor took out of or around it. */
  readonly redacted: string;
  readonly type: PiiType;
}

export interface LookalikeScore {
  /** Labelled look-alikes (each counted once, however often it occurs in its line). */
  readonly total: number;
  readonly lost: number;
  readonly losses: readonly LookalikeLoss[];
}

export interface PiiEvalReport {
  readonly lines: number;
  readonly perType: Readonly<Record<PiiType, PiiScore>>;
  readonly overall: PiiScore;
  readonly partialOverlaps: number;
  /** Every error, in fixture order, for whoever tunes the detector. */
  readonly misses: readonly PiiMiss[];
  /** Null when the fixture labels no look-alikes. */
  readonly lookalikes: LookalikeScore | null;
}

/** Parses JSONL fixture content; throws naming the line when a line is malformed or a value is absent. */
export function parseLabelledJsonl(content: string): LabelledLine[] {
  const lines: LabelledLine[] = [];
  content.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `fixture line ${index + 1}`;
    const parsed = JSON.parse(raw) as { text?: unknown; entities?: unknown; lookalikes?: unknown };
    if (typeof parsed.text !== 'string' || !Array.isArray(parsed.entities)) {
      throw new Error(`${where}: expected {"text": string, "entities": [...]}`);
    }
    const text = parsed.text;
    const entities = parsed.entities.map((e: { type?: unknown; value?: unknown; form?: unknown }) => {
      if (!PII_TYPES.includes(e.type as PiiType) || typeof e.value !== 'string' || e.value === '') {
        throw new Error(`${where}: bad entity ${JSON.stringify(e)}`);
      }
      if (!text.includes(e.value)) throw new Error(`${where}: value ${JSON.stringify(e.value)} not in text`);
      return { type: e.type as PiiType, value: e.value, ...(typeof e.form === 'string' ? { form: e.form } : {}) };
    });
    const lookalikes = parsed.lookalikes === undefined ? undefined : parseLookalikes(parsed.lookalikes, text, where);
    lines.push({ text, entities, ...(lookalikes ? { lookalikes } : {}) });
  });
  return lines;
}

function parseLookalikes(raw: unknown, text: string, where: string): Lookalike[] {
  if (!Array.isArray(raw)) throw new Error(`${where}: lookalikes must be an array`);
  return raw.map((l: { kind?: unknown; value?: unknown }) => {
    if (typeof l.kind !== 'string' || typeof l.value !== 'string' || !text.includes(l.value) || l.value === '') {
      throw new Error(`${where}: bad look-alike ${JSON.stringify(l)}`);
    }
    return { kind: l.kind, value: l.value };
  });
}

/** Every occurrence of `value` in `text`, as [start, end) pairs. */
function occurrences(text: string, value: string): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length)) out.push([at, at + value.length]);
  return out;
}

/** Gold spans of a line, by the value rules at the top of this file. */
export function goldSpans(line: LabelledLine): Array<PiiFinding & { readonly form?: string }> {
  const longestFirst = [...line.entities].sort((a, b) => b.value.length - a.value.length);
  const spans: Array<PiiFinding & { readonly form?: string }> = [];
  for (const { type, value, form } of longestFirst) {
    for (const [start, end] of occurrences(line.text, value)) {
      const span = { type, start, end, ...(form ? { form } : {}) };
      const inside = spans.some((s) => s.start <= span.start && span.end <= s.end);
      if (!inside) spans.push(span);
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

function score(tp: number, fp: number, fn: number): PiiScore {
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, fn, precision, recall, f1 };
}

const sameSpan = (a: PiiFinding, b: PiiFinding) => a.type === b.type && a.start === b.start && a.end === b.end;
const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

/** Scores the detector on every line, per type and overall (micro-averaged). */
export function evaluatePii(lines: readonly LabelledLine[], detect: PiiDetector): PiiEvalReport {
  const counts = Object.fromEntries(PII_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }])) as Record<PiiType, { tp: number; fp: number; fn: number }>;
  const misses: PiiMiss[] = [];
  const losses: LookalikeLoss[] = [];
  let lookalikeTotal = 0;
  let partialOverlaps = 0;
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    const gold = goldSpans(line);
    const predicted = detect(line.text);
    for (const p of predicted) {
      const value = line.text.slice(p.start, p.end);
      if (gold.some((g) => sameSpan(g, p))) {
        counts[p.type].tp += 1;
      } else {
        counts[p.type].fp += 1;
        misses.push({ kind: 'false_positive', line: lineNo, type: p.type, value });
        if (gold.some((g) => g.type === p.type && overlap(g, p))) partialOverlaps += 1;
      }
    }
    for (const g of gold) {
      if (predicted.some((p) => sameSpan(g, p))) continue;
      counts[g.type].fn += 1;
      misses.push({ kind: 'false_negative', line: lineNo, type: g.type, value: line.text.slice(g.start, g.end), ...(g.form ? { form: g.form } : {}) });
    }
    for (const look of line.lookalikes ?? []) {
      lookalikeTotal += 1;
      const spans = occurrences(line.text, look.value).map(([start, end]) => ({ start, end }));
      const hit = predicted.find((p) => spans.some((s) => overlap(s, p)));
      if (hit) losses.push({ line: lineNo, kind: look.kind, value: look.value, redacted: line.text.slice(hit.start, hit.end), type: hit.type });
    }
  });
  const perType = Object.fromEntries(PII_TYPES.map((t) => [t, score(counts[t].tp, counts[t].fp, counts[t].fn)])) as Record<PiiType, PiiScore>;
  const sum = (k: 'tp' | 'fp' | 'fn') => PII_TYPES.reduce((acc, t) => acc + counts[t][k], 0);
  return {
    lines: lines.length,
    perType,
    overall: score(sum('tp'), sum('fp'), sum('fn')),
    partialOverlaps,
    misses,
    lookalikes: lines.some((l) => l.lookalikes !== undefined) ? { total: lookalikeTotal, lost: losses.length, losses } : null,
  };
}

const pct = (x: number) => x.toFixed(3);

/** A plain-text table of the report, one row per type plus the overall row. */
export function formatPiiReport(report: PiiEvalReport): string {
  const header = ['type', 'gold', 'tp', 'fp', 'fn', 'precision', 'recall', 'f1'];
  const row = (name: string, s: PiiScore) => [name, String(s.tp + s.fn), String(s.tp), String(s.fp), String(s.fn), pct(s.precision), pct(s.recall), pct(s.f1)];
  const rows = [header, ...PII_TYPES.map((t) => row(t, report.perType[t])), row('overall', report.overall)];
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const render = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [`PII redaction: ${report.lines} labelled lines, strict span match (partial overlaps: ${report.partialOverlaps})`, ...rows.map(render)].join('\n');
}
