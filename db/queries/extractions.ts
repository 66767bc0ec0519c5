/** Extraction templates, jobs, extracted records and their corrections (issue 8). */
import type { ExtractedFields, TemplateField } from '../../domain/extraction/types';
import type { RecordEngine } from '../../domain/extraction/merge';
import type { SubjectKeys } from '../../domain/extraction/subject';
import { TenantScope } from '../tenant-scope';

export interface TemplateRow {
  id: string;
  name: string;
  description: string | null;
  fields: TemplateField[];
  created_at: Date;
  updated_at: Date;
}
export const TEMPLATE_COLUMNS = ['id', 'name', 'description', 'fields', 'created_at', 'updated_at'] as const;

export type ExtractionStatus = 'queued' | 'running' | 'completed' | 'failed';
export type ExtractionSource = { kind: 'file'; fileId: string } | { kind: 'text' };

export interface ExtractionRow {
  id: string;
  template_id: string;
  template_fields: TemplateField[];
  source_kind: 'file' | 'text';
  file_id: string | null;
  chunk_count: number | null;
  status: ExtractionStatus;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  /** The stored record (null until completed, and again once the record is deleted). */
  record_id: string | null;
}
const EXTRACTION_COLUMNS = [
  'id',
  'template_id',
  'template_fields',
  'source_kind',
  'file_id',
  'chunk_count',
  'status',
  'error',
  'created_by',
  'created_at',
  'started_at',
  'completed_at',
] as const;

export interface RecordRow {
  id: string;
  extraction_id: string | null;
  template_id: string;
  template_fields: TemplateField[];
  file_id: string | null;
  subject_contact_id: string | null;
  fields: ExtractedFields;
  engine: RecordEngine;
  model: string;
  notice: string | null;
  created_at: Date;
  updated_at: Date;
}
export const RECORD_COLUMNS = [
  'id',
  'extraction_id',
  'template_id',
  'template_fields',
  'file_id',
  'subject_contact_id',
  'fields',
  'engine',
  'model',
  'notice',
  'created_at',
  'updated_at',
] as const;

export interface CorrectionRow {
  id: string;
  field: string;
  original_value: unknown;
  corrected_value: unknown;
  corrected_by: string | null;
  corrected_at: Date;
  reason: string | null;
}

export function findTemplate(scope: TenantScope, id: string): Promise<TemplateRow | undefined> {
  return scope
    .table('extraction_templates')
    .where('id', id)
    .first([...TEMPLATE_COLUMNS]);
}

/** The job with its record's id, found through the record (so a deleted record reads as null). */
export function extractionsQuery(scope: TenantScope) {
  return scope
    .table('extractions')
    .select(...EXTRACTION_COLUMNS.map((c) => `extractions.${c}`), scope.db.raw('(select r.id from extracted_records r where r.extraction_id = extractions.id) as record_id'));
}

export function findExtraction(scope: TenantScope, id: string): Promise<ExtractionRow | undefined> {
  return extractionsQuery(scope).where('extractions.id', id).first();
}

export function findRecord(scope: TenantScope, id: string): Promise<RecordRow | undefined> {
  return scope
    .table('extracted_records')
    .where('id', id)
    .first([...RECORD_COLUMNS]);
}

export function recordCorrections(scope: TenantScope, recordId: string): Promise<CorrectionRow[]> {
  return scope
    .table('extracted_record_corrections')
    .where('record_id', recordId)
    .orderBy('id')
    .select('id', 'field', 'original_value', 'corrected_value', 'corrected_by', 'corrected_at', 'reason');
}

/** How many records and unfinished jobs use the template (a template in use cannot be deleted). */
export async function templateUsage(scope: TenantScope, templateId: string): Promise<{ records: number; pendingExtractions: number }> {
  const [records, pending] = await Promise.all([
    scope.table('extracted_records').where('template_id', templateId).count({ n: '*' }).first(),
    scope.table('extractions').where('template_id', templateId).whereIn('status', ['queued', 'running']).count({ n: '*' }).first(),
  ]);
  return { records: Number(records?.n ?? 0), pendingExtractions: Number(pending?.n ?? 0) };
}

/**
 * The tenant's contact an extracted e-mail or phone belongs to: e-mails case-insensitively (as the
 * contacts index compares them), phones by their digits, a national number also matching the end
 * of a stored international one (at least 9 digits). First match in key order; null when none.
 */
export async function matchSubjectContact(scope: TenantScope, keys: SubjectKeys): Promise<string | null> {
  for (const email of keys.emails) {
    const row = await scope.table('contacts').whereNotNull('email').whereRaw('lower(email) = ?', [email]).first('id');
    if (row) return row.id;
  }
  for (const digits of keys.phoneDigits) {
    if (digits.length < 6) continue;
    const row = await scope
      .table('contacts')
      .whereNotNull('phone')
      .where((w) => {
        w.whereRaw(`regexp_replace(phone, '\\D', '', 'g') = ?`, [digits]);
        if (digits.length >= 9) w.orWhereRaw(`regexp_replace(phone, '\\D', '', 'g') like ?`, [`%${digits.replace(/^0+/, '')}`]);
      })
      .orderBy('created_at')
      .first('id');
    if (row) return row.id;
  }
  return null;
}
