/**
 * Merging the chunks' results into one record (issue 8): per field the most confident candidate,
 * then the earlier one in the document (chunks overlap, so the same value may be found twice).
 * The record's engine is `built-in` or `openai-compatible` when every chunk was answered by that
 * engine, `mixed` when the model failed on some chunks and the built-in engine answered those
 * (each field still names its own engine).
 */
import type { ChunkResult, ExtractedFields, FieldResult, TemplateField } from './types';
import { emptyField } from './types';
import { ownValue } from '../own';

export type RecordEngine = 'built-in' | 'openai-compatible' | 'mixed';

export interface MergedRecord {
  fields: ExtractedFields;
  engine: RecordEngine;
  model: string;
  /** Present when the configured model failed and the built-in engine stood in. */
  notice: string | null;
}

function preferred(a: FieldResult, b: FieldResult): FieldResult {
  if (a.value === null) return b;
  if (b.value === null) return a;
  if (a.confidence !== b.confidence) return a.confidence > b.confidence ? a : b;
  return (a.source?.start ?? Infinity) <= (b.source?.start ?? Infinity) ? a : b;
}

export function mergeChunkResults(fields: readonly TemplateField[], chunks: readonly ChunkResult[]): MergedRecord {
  const engines = new Set(chunks.map((c) => c.engine));
  const engine: RecordEngine = engines.size === 1 ? [...engines][0] : engines.size === 0 ? 'built-in' : 'mixed';
  const merged: ExtractedFields = {};
  for (const field of fields) {
    merged[field.name] = chunks.reduce<FieldResult>(
      (best, c) => ((found) => (found ? preferred(best, found) : best))(ownValue(c.fields, field.name)),
      emptyField(engine === 'openai-compatible' ? 'openai-compatible' : 'built-in'),
    );
  }
  const modelChunk = chunks.find((c) => c.engine === 'openai-compatible');
  const fellBack = chunks.filter((c) => c.fellBack).length;
  return {
    fields: merged,
    engine,
    model: modelChunk?.model ?? 'built-in',
    notice: fellBack > 0 ? `The configured language model failed on ${fellBack} of ${chunks.length} chunk(s); the built-in engine extracted those.` : null,
  };
}

/** Required fields the record has no value for (a person should fill them in). */
export function missingRequired(fields: readonly TemplateField[], values: ExtractedFields): string[] {
  return fields.filter((f) => f.required && (ownValue(values, f.name)?.value ?? null) === null).map((f) => f.name);
}
