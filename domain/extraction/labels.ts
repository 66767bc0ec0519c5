/**
 * Labels the built-in engine looks for next to a field's value: the field's name in words
 * (`invoice_date` → "invoice date"), common spellings of its last word ("invoice no", "e-mail"), and
 * every double-quoted phrase of its instructions (`Labelled "Total"`). Pure.
 */
import type { TemplateField } from './types';

const LAST_WORD_VARIANTS: Record<string, string[]> = {
  number: ['no', 'nr', 'nº', 'num', '#'],
  no: ['number', 'nr', 'nº', '#'],
  id: ['no', 'number', '#'],
  email: ['e-mail', 'mail'],
  phone: ['tel', 'telephone', 'mobile'],
  qty: ['quantity'],
};

export function fieldWords(field: Pick<TemplateField, 'name'>): string[] {
  return field.name.split('_').filter(Boolean);
}

export function labelsFor(field: Pick<TemplateField, 'name' | 'instructions'>): string[] {
  const words = fieldWords(field);
  const labels = new Set<string>([words.join(' ')]);
  const last = words[words.length - 1];
  for (const variant of LAST_WORD_VARIANTS[last] ?? []) labels.add([...words.slice(0, -1), variant].join(' '));
  for (const m of (field.instructions ?? '').matchAll(/["“]([^"”\n]{1,60})["”]/g)) labels.add(m[1].trim().toLowerCase());
  return [...labels].filter((l) => l.length > 0);
}

export interface LabelWindow {
  /** Where the label itself is. */
  labelStart: number;
  labelEnd: number;
  /** The text the value is looked for in: the rest of the label's line, or the next non-empty line. */
  start: number;
  end: number;
  sameLine: boolean;
  /** Characters of the label: a longer label is the more specific one. */
  specificity: number;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function labelPattern(label: string): RegExp {
  const body = label
    .split(/\s+/)
    .map(escapeRe)
    .join(String.raw`[ \t_\-]+`);
  const after = /[\p{L}\p{N}]$/u.test(label) ? String.raw`(?![\p{L}\p{N}_])` : '';
  // The separator after a label: "Invoice No.: ", "Total - ", "Ref # ".
  return new RegExp(String.raw`(?<![\p{L}\p{N}_])${body}${after}\.?[ \t]*(?:[:#=]|[-–—](?=[ \t]))?[ \t]*`, 'giu');
}

function lineEnd(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl === -1 ? text.length : nl;
}

/** Every occurrence of any of the labels in the text, with the window its value should be in. */
export function labelWindows(text: string, labels: readonly string[]): LabelWindow[] {
  const out: LabelWindow[] = [];
  for (const label of labels) {
    for (const m of text.matchAll(labelPattern(label))) {
      const labelStart = m.index!;
      const valueStart = labelStart + m[0].length;
      const end = lineEnd(text, valueStart);
      const base = { labelStart, labelEnd: labelStart + label.length, specificity: label.length };
      if (text.slice(valueStart, end).trim() !== '') {
        out.push({ ...base, start: valueStart, end, sameLine: true });
        continue;
      }
      // Label alone on its line: the value is on the next non-empty line.
      let next = end + 1;
      while (next < text.length) {
        const e = lineEnd(text, next);
        const line = text.slice(next, e);
        if (line.trim() !== '') {
          const lead = line.length - line.trimStart().length;
          out.push({ ...base, start: next + lead, end: e, sameLine: false });
          break;
        }
        next = e + 1;
      }
    }
  }
  return out;
}
