/** Extraction templates, jobs, extracted records and their corrections (issue 8). */
import type { ExtractedFields, TemplateField } from '../../domain/extraction/types';
import type { RecordEngine } from '../../domain/extraction/merge';
import type { SubjectKeys } from '../../domain/extraction/subject';
import type { Knex } from 'knex';
import { TenantScope } from '../tenant-scope';
import { listQuery, whereUuidFilters } from './list-query';

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

/** Whether another template of the tenant has this name (case-insensitively). */
export async function templateNameTaken(scope: TenantScope, name: string, exceptId?: string): Promise<boolean> {
  const q = scope.table('extraction_templates').whereRaw('lower(name) = lower(?)', [name]);
  if (exceptId) q.whereNot('id', exceptId);
  return Boolean(await q.first('id'));
}

/** A template's jobs (finished ones without a record, once templateUsage allows the delete). */
export function deleteTemplateExtractions(scope: TenantScope, templateId: string): Promise<number> {
  return scope.table('extractions').where('template_id', templateId).delete();
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

export interface ExtractionFilter {
  status?: string;
  template_id?: string;
}

/** The tenant's jobs, oldest first; a template_id that is not a UUID matches nothing. */
export function extractionListQuery(scope: TenantScope, filter: ExtractionFilter): Knex.QueryBuilder {
  const q = extractionsQuery(scope).orderBy([{ column: 'extractions.created_at' }, { column: 'extractions.id' }]);
  if (filter.status) q.where('extractions.status', filter.status);
  whereUuidFilters(q, filter, { template_id: 'extractions.template_id' });
  return q;
}

export interface RecordFilter {
  template_id?: string;
  subject_contact_id?: string;
}

/** The tenant's records, oldest first; a filter value that is not a UUID matches nothing. */
export function recordListQuery(scope: TenantScope, filter: RecordFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'extracted_records', RECORD_COLUMNS, [{ column: 'created_at' }, { column: 'id' }]);
  whereUuidFilters(q, filter, { template_id: 'template_id', subject_contact_id: 'subject_contact_id' });
  return q;
}

/** The record's stored fields, its row locked until the transaction ends (a correction reads, then writes them). */
export async function lockRecordFields(scope: TenantScope, id: string): Promise<ExtractedFields> {
  const row = await scope.table('extracted_records').where('id', id).forUpdate().first('fields');
  return row.fields;
}

export function insertCorrections(
  scope: TenantScope,
  recordId: string,
  changes: Array<{ field: string; original: unknown; corrected: unknown }>,
  by: { userId: string; at: Date; reason: string | null },
): Promise<unknown[]> {
  return scope.insert(
    'extracted_record_corrections',
    changes.map((c) => ({
      record_id: recordId,
      field: c.field,
      original_value: JSON.stringify(c.original),
      corrected_value: JSON.stringify(c.corrected),
      corrected_by: by.userId,
      corrected_at: by.at,
      reason: by.reason,
    })),
    ['id'],
  );
}

export async function updateRecordFields(scope: TenantScope, id: string, fields: ExtractedFields, at: Date): Promise<RecordRow> {
  const [updated] = await scope
    .table('extracted_records')
    .where('id', id)
    .update({ fields: JSON.stringify(fields), updated_at: at })
    .returning([...RECORD_COLUMNS]);
  return updated as RecordRow;
}

/** A record and its correction history. */
export async function deleteRecordRow(scope: TenantScope, id: string): Promise<void> {
  await scope.table('extracted_record_corrections').where('record_id', id).delete();
  await scope.table('extracted_records').where('id', id).delete();
}

/** A queued job reading a file or a text with the template's fields as they are now. */
export async function insertExtraction(
  scope: TenantScope,
  template: Pick<TemplateRow, 'id' | 'fields'>,
  source: { file_id?: string; text?: string },
  createdBy: string,
): Promise<string> {
  const [row] = await scope.insert(
    'extractions',
    {
      template_id: template.id,
      template_fields: JSON.stringify(template.fields),
      source_kind: source.file_id ? 'file' : 'text',
      file_id: source.file_id ?? null,
      input_text: source.text ?? null,
      created_by: createdBy,
    },
    ['id'],
  );
  return row.id as string;
}

/** A job whose workflow never started: failed, its text dropped. */
export function markExtractionNotStarted(scope: TenantScope, id: string): Promise<number> {
  return scope.table('extractions').where('id', id).update({ status: 'failed', error: 'the extraction could not be started', input_text: null });
}
