/**
 * Extraction through the configured language model (DESIGN.md, Language models): the prompt asks
 * for one JSON object, and the answer is validated and coerced to the template's types here. A value
 * the model gives is located in the chunk by the quote it returns (or the value itself) to get its
 * source span; found: confidence MODEL_QUOTED, not found: MODEL_UNQUOTED and no span. Pure.
 */
import type { ChatMessage } from '../llm/provider';
import { coerceFieldValue } from './coerce';
import type { ExtractedFields, FieldResult, TemplateField } from './types';
import { emptyField } from './types';
import { ownValue } from '../own';

export const MODEL_CONFIDENCE = { QUOTED: 0.8, UNQUOTED: 0.5 } as const;

export class ModelAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelAnswerError';
  }
}

function describe(field: TemplateField): string {
  const type = field.type === 'enum' ? `one of ${JSON.stringify(field.values)}` : field.type === 'array' ? `array of ${field.items}` : field.type;
  return `- ${field.name} (${type}${field.required ? ', required' : ''})${field.instructions ? `: ${field.instructions}` : ''}`;
}

export function extractionPrompt(fields: readonly TemplateField[], text: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You extract fields from a document. Answer with ONE JSON object and nothing else. For every field name, give ' +
        '{"value": <value or null>, "quote": <the exact text of the document the value comes from, or null>}. ' +
        'Dates as yyyy-mm-dd, numbers as JSON numbers, booleans as true/false. Use null when the document does not say.',
    },
    { role: 'user', content: `Fields:\n${fields.map(describe).join('\n')}\n\nDocument:\n"""\n${text}\n"""` },
  ];
}

function jsonObjectIn(answer: string): Record<string, unknown> {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start === -1 || end < start) throw new ModelAnswerError('the model answer holds no JSON object');
  try {
    const parsed: unknown = JSON.parse(answer.slice(start, end + 1));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new ModelAnswerError('the model answer is not a JSON object');
}

/** The model's answer for one chunk as field results; values that do not fit their type are dropped (null). */
export function parseModelAnswer(fields: readonly TemplateField[], answer: string, text: string, base = 0): ExtractedFields {
  const object = jsonObjectIn(answer);
  const out: ExtractedFields = {};
  for (const field of fields) {
    const entry = ownValue(object, field.name);
    const raw = entry && typeof entry === 'object' && !Array.isArray(entry) && 'value' in entry ? (entry as { value: unknown }).value : entry;
    const coerced = raw === undefined ? null : coerceFieldValue(field, raw);
    if (!coerced || !coerced.ok || coerced.value === null) {
      out[field.name] = emptyField('openai-compatible');
      continue;
    }
    const quote = entry && typeof entry === 'object' && typeof (entry as { quote?: unknown }).quote === 'string' ? (entry as { quote: string }).quote : null;
    const needle = quote ?? (typeof raw === 'string' || typeof raw === 'number' ? String(raw) : null);
    const at = needle ? text.indexOf(needle) : -1;
    const result: FieldResult = {
      value: coerced.value,
      confidence: at >= 0 ? MODEL_CONFIDENCE.QUOTED : MODEL_CONFIDENCE.UNQUOTED,
      source: at >= 0 && needle ? { start: base + at, end: base + at + needle.length, text: needle } : null,
      engine: 'openai-compatible',
    };
    out[field.name] = result;
  }
  return out;
}
