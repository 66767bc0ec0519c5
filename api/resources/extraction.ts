/** The extraction resources (templates, jobs, records) as their routers share them: schemas and mappers. */
import Joi from '../../domain/joi';
import { CorrectionRow, ExtractionRow, RecordRow, TemplateRow } from '../../db/queries/extractions';
import { missingRequired } from '../../domain/extraction/merge';
import { ARRAY_ITEM_TYPES, FIELD_TYPES } from '../../domain/extraction/types';
import { idParam } from '../validation';
import { isoTime } from '../../domain/time';
export const idParams = (name: string) => Joi.object({ [name]: idParam.required() });

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** One template field: enum needs `values`, array takes `items` (default string); other types take neither. */
export const templateFieldSchema = Joi.object({
  name: Joi.string().max(64).pattern(SNAKE_CASE, 'snake_case').required(),
  type: Joi.string()
    .valid(...FIELD_TYPES)
    .required(),
  required: Joi.boolean().default(false),
  instructions: Joi.string().trim().max(1000),
  values: Joi.array()
    .items(Joi.string().trim().min(1).max(100))
    .min(1)
    .max(100)
    .unique((a: string, b: string) => a.toLowerCase() === b.toLowerCase())
    .when('type', { is: 'enum', then: Joi.required(), otherwise: Joi.forbidden().messages({ 'any.unknown': 'applies only to enum fields' }) }),
  items: Joi.when('type', {
    is: 'array',
    then: Joi.string()
      .valid(...ARRAY_ITEM_TYPES)
      .default('string'),
    otherwise: Joi.forbidden().messages({ 'any.unknown': 'applies only to array fields' }),
  }),
});

export const templateFields = Joi.array().items(templateFieldSchema).min(1).max(100).unique('name');

export const templateSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  description: Joi.string().allow(null),
  fields: Joi.array().items(templateFieldSchema),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});

export function toTemplate(row: TemplateRow) {
  return { id: row.id, name: row.name, description: row.description, fields: row.fields, created_at: isoTime(row.created_at), updated_at: isoTime(row.updated_at) };
}

export const extractionSchema = Joi.object({
  id: Joi.string(),
  template_id: Joi.string(),
  source: Joi.object({ kind: Joi.string().valid('file', 'text'), file_id: Joi.string().allow(null) }),
  status: Joi.string().valid('queued', 'running', 'completed', 'failed'),
  error: Joi.string().allow(null).description('Why the job failed (never document content)'),
  chunks: Joi.number().allow(null).description('How many chunks the document was split into, once loaded'),
  record_id: Joi.string().allow(null).description('The stored record once completed (null again if it was deleted)'),
  created_by: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
  started_at: Joi.string().isoDate().allow(null),
  completed_at: Joi.string().isoDate().allow(null),
});

export function toExtraction(row: ExtractionRow) {
  return {
    id: row.id,
    template_id: row.template_id,
    source: { kind: row.source_kind, file_id: row.file_id },
    status: row.status,
    error: row.error,
    chunks: row.chunk_count,
    record_id: row.record_id,
    created_by: row.created_by,
    created_at: isoTime(row.created_at),
    started_at: isoTime(row.started_at),
    completed_at: isoTime(row.completed_at),
  };
}

const fieldResultSchema = Joi.object({
  value: Joi.any(),
  confidence: Joi.number().min(0).max(1),
  source: Joi.object({ start: Joi.number(), end: Joi.number(), text: Joi.string() }).allow(null),
  engine: Joi.string().valid('built-in', 'openai-compatible', 'person').description('Who gave the value: an engine, or a person who corrected it'),
});

export const recordSummarySchema = Joi.object({
  id: Joi.string(),
  extraction_id: Joi.string().allow(null),
  template_id: Joi.string(),
  file_id: Joi.string().allow(null),
  subject_contact_id: Joi.string().allow(null),
  fields: Joi.object().pattern(Joi.string(), fieldResultSchema),
  missing_required: Joi.array().items(Joi.string()),
  engine: Joi.string().valid('built-in', 'openai-compatible', 'mixed').description('`mixed`: the model failed on some chunks and the built-in engine extracted those'),
  model: Joi.string(),
  notice: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});

export const recordSchema = recordSummarySchema.keys({
  template_fields: Joi.array().items(templateFieldSchema).description('The template fields the record was extracted with'),
  corrections: Joi.array().items(
    Joi.object({
      field: Joi.string(),
      original_value: Joi.any(),
      corrected_value: Joi.any(),
      corrected_by: Joi.string().allow(null),
      corrected_at: Joi.string().isoDate(),
      reason: Joi.string().allow(null),
    }),
  ),
});

export function toRecordSummary(row: RecordRow) {
  return {
    id: row.id,
    extraction_id: row.extraction_id,
    template_id: row.template_id,
    file_id: row.file_id,
    subject_contact_id: row.subject_contact_id,
    fields: row.fields,
    missing_required: missingRequired(row.template_fields, row.fields),
    engine: row.engine,
    model: row.model,
    notice: row.notice,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export function toRecord(row: RecordRow, corrections: CorrectionRow[]) {
  return {
    ...toRecordSummary(row),
    template_fields: row.template_fields,
    corrections: corrections.map((c) => ({
      field: c.field,
      original_value: c.original_value,
      corrected_value: c.corrected_value,
      corrected_by: c.corrected_by,
      corrected_at: isoTime(c.corrected_at),
      reason: c.reason,
    })),
  };
}
