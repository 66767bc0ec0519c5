/**
 * Extraction jobs and extracted records, without HTTP: reads take the tenant's scope, changes a
 * unit of work (db/unit-of-work.ts); both answer rows. api/routes/extractions.ts is the HTTP face.
 */
import type { Logger } from 'pino';
import { removeCollectionMemberships } from '../db/queries/collections';
import {
  CorrectionRow,
  deleteRecordRow,
  ExtractionFilter,
  extractionListQuery,
  ExtractionRow,
  findExtraction,
  findRecord,
  insertCorrections,
  insertExtraction,
  lockRecordFields,
  markExtractionNotStarted,
  RecordFilter,
  recordCorrections,
  recordListQuery,
  RecordRow,
  updateRecordFields,
} from '../db/queries/extractions';
import { fileById } from '../db/queries/files';
import { findOr404 } from '../db/find-or-404';
import type { Db } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import { isUuid, tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type Unit, type UserUnitContext } from '../db/unit-of-work';
import { coerceFieldValue } from '../domain/extraction/coerce';
import type { ExtractedFields } from '../domain/extraction/types';
import { FieldError, validationError } from '../domain/errors';
import { ownValue } from '../domain/own';
import { errorSummary } from '../infra/error-chain';
import type { TemporalGateway } from '../infra/temporal';
import { callTemporal } from '../orchestration/temporal-call';
import { startExtraction } from '../orchestration/extractions';
import { requireTemplate } from './extraction-templates';

export type { ExtractionFilter, RecordFilter };

export interface ExtractionOrder {
  template_id: string;
  file_id?: string;
  text?: string;
}

export interface RecordCorrection {
  fields: Record<string, unknown>;
  reason?: string;
}

export function listRecords(scope: TenantScope, filter: RecordFilter, page: PageRequest): Promise<Page<RecordRow>> {
  return paginate(recordListQuery(scope, filter), page);
}

export function requireRecord(scope: TenantScope, id: string): Promise<RecordRow> {
  return findOr404('extracted record', id, () => findRecord(scope, id));
}

/** A record's correction history, oldest first. */
export function correctionsOf(scope: TenantScope, recordId: string): Promise<CorrectionRow[]> {
  return recordCorrections(scope, recordId);
}

const subjectOf = (record: RecordRow) => (record.subject_contact_id ? { subjectId: record.subject_contact_id } : {});

/**
 * Corrects field values against the field types the record was extracted with (422 naming every
 * unknown field and wrong value); each change is kept with the value it replaced.
 */
export async function correctRecord(unit: Unit, id: string, userId: string, correction: RecordCorrection): Promise<RecordRow> {
  const record = await requireRecord(unit.scope, id);
  const fields: ExtractedFields = { ...(await lockRecordFields(unit.scope, record.id)) };
  const errors: FieldError[] = [];
  const changes: Array<{ field: string; original: unknown; corrected: unknown }> = [];
  for (const [name, raw] of Object.entries(correction.fields)) {
    const field = record.template_fields.find((f) => f.name === name);
    if (!field) {
      errors.push({ field: `body.fields.${name}`, message: 'is not a field of this record', type: 'any.unknown' });
      continue;
    }
    const coerced = coerceFieldValue(field, raw);
    if (!coerced.ok) {
      errors.push({ field: `body.fields.${name}`, message: coerced.reason, type: `field.${field.type}` });
      continue;
    }
    const previous = ownValue(fields, name) ?? { value: null, confidence: 0, source: null, engine: 'person' as const };
    changes.push({ field: name, original: previous.value, corrected: coerced.value });
    fields[name] = { ...previous, value: coerced.value, confidence: 1, engine: 'person' };
  }
  if (errors.length > 0) throw validationError(`invalid correction: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  const now = new Date();
  await insertCorrections(unit.scope, record.id, changes, { userId, at: now, reason: correction.reason ?? null });
  const updated = await updateRecordFields(unit.scope, record.id, fields, now);
  unit.audit({
    action: 'extracted_record.corrected',
    resourceType: 'extracted_record',
    resourceId: record.id,
    details: { fields: changes.map((c) => c.field) },
    ...subjectOf(record),
  });
  return updated;
}

/** Deletes a record, its correction history and its collection memberships. */
export async function deleteRecord(unit: Unit, id: string): Promise<void> {
  const record = await requireRecord(unit.scope, id);
  await deleteRecordRow(unit.scope, record.id);
  await removeCollectionMemberships(unit.scope, 'extracted_record', record.id);
  unit.audit({ action: 'extracted_record.deleted', resourceType: 'extracted_record', resourceId: record.id, ...subjectOf(record) });
}

export function listExtractions(scope: TenantScope, filter: ExtractionFilter, page: PageRequest): Promise<Page<ExtractionRow>> {
  return paginate(extractionListQuery(scope, filter), page);
}

export function requireExtraction(scope: TenantScope, id: string): Promise<ExtractionRow> {
  return findOr404('extraction', id, () => findExtraction(scope, id));
}

const unknownReference = (field: string, what: string) =>
  validationError(`${field} does not name ${what} of this tenant`, [{ field: `body.${field}`, message: 'unknown reference', type: 'any.unknown_reference' }]);

/**
 * Records the job (its audit row with it), then starts its workflow. A start that fails marks the
 * committed job failed (it would wait forever otherwise) and rethrows; the caller may retry.
 * Answers the job as accepted (`queued`): read after the start, it would say `running` or
 * `queued` depending on how fast a worker took it.
 */
export async function requestExtraction(
  deps: { db: Db; temporal: TemporalGateway; log: Pick<Logger, 'error'> },
  context: UserUnitContext,
  order: ExtractionOrder,
): Promise<ExtractionRow> {
  const created = await runUnit(deps.db, context, async (unit) => {
    const template = isUuid(order.template_id) ? await requireTemplate(unit.scope, order.template_id).catch(() => null) : null;
    if (!template) throw unknownReference('template_id', 'an extraction template');
    if (order.file_id !== undefined && !(isUuid(order.file_id) && (await fileById(unit.scope, order.file_id)))) throw unknownReference('file_id', 'a file');
    const jobId = await insertExtraction(unit.scope, template, order, context.userId);
    unit.audit({ action: 'extraction.requested', resourceType: 'extraction', resourceId: jobId, details: { template_id: template.id, file_id: order.file_id ?? null } });
    return (await findExtraction(unit.scope, jobId))!;
  });
  const scope = tenantScope(deps.db, context.tenantId);
  try {
    await callTemporal(deps.temporal, 'the extraction could not be started', (client) => startExtraction(client, context.tenantId, created.id));
  } catch (err) {
    await markExtractionNotStarted(scope, created.id);
    deps.log.error({ err: errorSummary(err), extraction_id: created.id }, 'extraction start failed');
    throw err;
  }
  return created;
}
