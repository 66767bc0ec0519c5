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
import { PII_TYPES, type PiiFinding, type PiiType } from './pii';

export interface LabelledEntity {
  readonly type: PiiType;
  readonly value: string;
}

export interface LabelledLine {
  readonly text: string;
  readonly entities: readonly LabelledEntity[];
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
  | { readonly kind: 'false_negative'; readonly line: number; readonly type: PiiType; readonly value: string }
  | { readonly kind: 'false_positive'; readonly line: number; readonly type: PiiType; readonly value: string };

export interface PiiEvalReport {
  readonly lines: number;
  readonly perType: Readonly<Record<PiiType, PiiScore>>;
  readonly overall: PiiScore;
  readonly partialOverlaps: number;
  /** Every error, in fixture order, for whoever tunes the detector. */
  readonly misses: readonly PiiMiss[];
}

/** Parses JSONL fixture content; throws naming the line when a line is malformed or a value is absent. */
export function parseLabelledJsonl(content: string): LabelledLine[] {
  const lines: LabelledLine[] = [];
  content.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `fixture line ${index + 1}`;
    const parsed = JSON.parse(raw) as { text?: unknown; entities?: unknown };
    if (typeof parsed.text !== 'string' || !Array.isArray(parsed.entities)) {
      throw new Error(`${where}: expected {"text": string, "entities": [...]}`);
    }
    const text = parsed.text;
    const entities = parsed.entities.map((e: { type?: unknown; value?: unknown }) => {
      if (!PII_TYPES.includes(e.type as PiiType) || typeof e.value !== 'string' || e.value === '') {
        throw new Error(`${where}: bad entity ${JSON.stringify(e)}`);
      }
      if (!text.includes(e.value)) throw new Error(`${where}: value ${JSON.stringify(e.value)} not in text`);
      return { type: e.type as PiiType, value: e.value };
    });
    lines.push({ text, entities });
  });
  return lines;
}

/** Gold spans of a line, by the value rules at the top of this file. */
export function goldSpans(line: LabelledLine): PiiFinding[] {
  const longestFirst = [...line.entities].sort((a, b) => b.value.length - a.value.length);
  const spans: PiiFinding[] = [];
  for (const { type, value } of longestFirst) {
    for (let at = line.text.indexOf(value); at !== -1; at = line.text.indexOf(value, at + value.length)) {
      const span = { type, start: at, end: at + value.length };
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
const overlap = (a: PiiFinding, b: PiiFinding) => a.start < b.end && b.start < a.end;

/** Scores the detector on every line, per type and overall (micro-averaged). */
export function evaluatePii(lines: readonly LabelledLine[], detect: PiiDetector): PiiEvalReport {
  const counts = Object.fromEntries(PII_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }])) as Record<PiiType, { tp: number; fp: number; fn: number }>;
  const misses: PiiMiss[] = [];
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
      misses.push({ kind: 'false_negative', line: lineNo, type: g.type, value: line.text.slice(g.start, g.end) });
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
