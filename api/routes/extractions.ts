/**
 * `/api/v1/extractions` (issue 8): extraction jobs (a file or a text read with a template, run as
 * the workflow `extraction/<tenant>/<extraction>`) and the records they store, which people read,
 * correct (the history keeps every original value) and delete. `/records` is registered before
 * `/:extraction_id`.
 */
import { removeCollectionMemberships } from '../../db/queries/collections';
import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import { extractionsQuery, findExtraction, findRecord, RECORD_COLUMNS, RecordRow, recordCorrections } from '../../db/queries/extractions';
import { fileById } from '../../db/queries/files';
import { isUuid, tenantScope, TenantScope } from '../../db/tenant-scope';
import { coerceFieldValue } from '../../domain/extraction/coerce';
import type { ExtractedFields } from '../../domain/extraction/types';
import { startExtraction } from '../../orchestration/extractions';
import { tenantScopeOf, userOf } from '../context';
import { errorSummary } from '../../infra/error-chain';
import { FieldError, validationError } from '../../domain/errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { paginate, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { extractionSchema, idParams, recordSchema, recordSummarySchema, toExtraction, toRecord, toRecordSummary } from '../resources/extraction';
import { requireTemplate } from './extraction-templates';
import { ownValue } from '../../domain/own';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';

/** Characters of text a request may carry (the JSON body is limited to 1 MB anyway). */
export const MAX_TEXT_INPUT = 900_000;

const page = (item: Schema) => pageOf(item);
/** A filter on a uuid column: a value that is not a UUID matches nothing (rather than a query error). */
const uuidFilter = (q: { whereRaw(sql: string): unknown }, value: string | undefined, apply: (v: string) => void) => {
  if (value === undefined) return;
  if (isUuid(value)) apply(value);
  else q.whereRaw('false');
};

function requireRecord(scope: TenantScope, id: string): Promise<RecordRow> {
  return findOr404('extracted record', id, () => findRecord(scope, id));
}

type CreateBody = { template_id: string; file_id?: string; text?: string };
/** What a template field holds: a scalar, or (array fields) a list of scalars; null clears it. */
const correctedScalar = Joi.alternatives(Joi.string().allow('').max(10_000), Joi.number(), Joi.boolean());
// null as a branch, not `.allow(null)`, which joi-to-json writes as a conflicting `type: null` beside the branches.
const correctedValue = Joi.alternatives(correctedScalar, Joi.array().items(correctedScalar).max(1_000), Joi.valid(null));

type CorrectBody = { fields: Record<string, unknown>; reason?: string };

function registerRecordRoutes(api: ApiRouter): void {
  api.route<unknown, PageRequest & { template_id?: string; subject_contact_id?: string }>({
    method: 'get',
    path: '/records',
    summary: 'List extracted records',
    tags: ['extractions'],
    auth: 'user',
    permission: 'view_extractions',
    query: Joi.object({ ...pageQuery, template_id: idRef, subject_contact_id: idRef }),
    responses: { 200: { description: 'A page of records', schema: page(recordSummarySchema) } },
    handler: async (ctx, { query }) => {
      const q = tenantScopeOf(ctx)
        .table('extracted_records')
        .select([...RECORD_COLUMNS])
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      uuidFilter(q, query.template_id, (v) => void q.where('template_id', v));
      uuidFilter(q, query.subject_contact_id, (v) => void q.where('subject_contact_id', v));
      ctx.body = await paginate(q, query, toRecordSummary);
    },
  });

  const record = resourceRoutes(api, {
    path: '/records/:record_id',
    tags: ['extractions'],
    view: 'view_extractions',
    schema: recordSchema,
    find: requireRecord,
  });
  record.get({ summary: 'Get an extracted record with its correction history', found: 'Record' }, async (row, scope) => toRecord(row, await recordCorrections(scope, row.id)));

  api.route<{ record_id: string }, unknown, CorrectBody>({
    method: 'patch',
    path: '/records/:record_id',
    summary: 'Correct field values; each change is kept in the history with the value it replaced',
    description: 'Body: `{"fields": {"<name>": <value>}, "reason": "..."}`. Values are checked against the field types the record was extracted with; `null` clears a value.',
    tags: ['extractions'],
    auth: 'user',
    permission: 'manage_extractions',
    params: idParams('record_id'),
    body: Joi.object({ fields: Joi.object().pattern(Joi.string(), correctedValue).min(1).max(100).required(), reason: Joi.string().trim().max(1000) }),
    responses: {
      200: { description: 'Corrected record', schema: recordSchema },
      404: { description: 'Not found' },
      422: { description: 'Unknown field or a value of the wrong type' },
    },
    handler: async (ctx, { params, body }) => {
      const { tenantId, userId } = userOf(ctx);
      const row = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const record = await requireRecord(unit.scope, params.record_id);
        const locked = await unit.scope.table('extracted_records').where('id', record.id).forUpdate().first('fields');
        const fields: ExtractedFields = { ...locked.fields };
        const errors: FieldError[] = [];
        const changes: Array<{ field: string; original: unknown; corrected: unknown }> = [];
        for (const [name, raw] of Object.entries(body.fields)) {
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
        await unit.scope.insert(
          'extracted_record_corrections',
          changes.map((c) => ({
            record_id: record.id,
            field: c.field,
            original_value: JSON.stringify(c.original),
            corrected_value: JSON.stringify(c.corrected),
            corrected_by: userId,
            corrected_at: now,
            reason: body.reason ?? null,
          })),
          ['id'],
        );
        const [updated] = await unit.scope
          .table('extracted_records')
          .where('id', record.id)
          .update({ fields: JSON.stringify(fields), updated_at: now })
          .returning([...RECORD_COLUMNS]);
        unit.audit({
          action: 'extracted_record.corrected',
          resourceType: 'extracted_record',
          resourceId: record.id,
          details: { fields: changes.map((c) => c.field) },
          ...(record.subject_contact_id ? { subjectId: record.subject_contact_id } : {}),
        });
        return updated as RecordRow;
      });
      ctx.body = toRecord(row, await recordCorrections(tenantScope(ctx.deps.db, tenantId), row.id));
    },
  });

  api.route<{ record_id: string }>({
    method: 'delete',
    path: '/records/:record_id',
    summary: 'Delete an extracted record and its correction history',
    tags: ['extractions'],
    auth: 'user',
    permission: 'manage_extractions',
    params: idParams('record_id'),
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }) => {
      const { tenantId } = userOf(ctx);
      await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const record = await requireRecord(unit.scope, params.record_id);
        await unit.scope.table('extracted_record_corrections').where('record_id', record.id).delete();
        await unit.scope.table('extracted_records').where('id', record.id).delete();
        await removeCollectionMemberships(unit.scope, 'extracted_record', record.id);
        unit.audit({
          action: 'extracted_record.deleted',
          resourceType: 'extracted_record',
          resourceId: record.id,
          ...(record.subject_contact_id ? { subjectId: record.subject_contact_id } : {}),
        });
      });
      ctx.status = 204;
    },
  });
}

export function extractionRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/extractions');
  // Static paths first: /records must not be taken for an :extraction_id.
  registerRecordRoutes(api);

  api.route<unknown, PageRequest & { status?: string; template_id?: string }>({
    method: 'get',
    path: '/',
    summary: 'List extraction jobs',
    tags: ['extractions'],
    auth: 'user',
    permission: 'view_extractions',
    query: Joi.object({ ...pageQuery, status: Joi.string().valid('queued', 'running', 'completed', 'failed'), template_id: idRef }),
    responses: { 200: { description: 'A page of extraction jobs', schema: page(extractionSchema) } },
    handler: async (ctx, { query }) => {
      const q = extractionsQuery(tenantScopeOf(ctx)).orderBy([{ column: 'extractions.created_at' }, { column: 'extractions.id' }]);
      if (query.status) q.where('extractions.status', query.status);
      uuidFilter(q, query.template_id, (v) => void q.where('extractions.template_id', v));
      ctx.body = await paginate(q, query, toExtraction);
    },
  });

  api.route<unknown, unknown, CreateBody>({
    method: 'post',
    path: '/',
    summary: 'Extract a file or a text with a template (runs as a workflow)',
    description:
      'Body: `template_id` and exactly one of `file_id` (a PDF or text/plain file of the files API) or `text`. Answers 202 with the ' +
      'queued job; poll `GET /extractions/{id}` until `completed` (then `record_id`) or `failed` (then `error`). The built-in engine ' +
      'extracts unless LLM_BASE_URL configures an OpenAI-compatible model; each field says which engine gave it.',
    tags: ['extractions'],
    auth: 'user',
    permission: 'manage_extractions',
    body: Joi.object({
      template_id: idRef.required(),
      file_id: idRef,
      text: Joi.string().min(1).max(MAX_TEXT_INPUT),
    }).xor('file_id', 'text'),
    responses: { 202: { description: 'Queued extraction', schema: extractionSchema }, 422: { description: 'Unknown template or file' } },
    handler: async (ctx, { body }) => {
      const { tenantId, userId } = userOf(ctx);
      const unknownReference = (field: string, what: string) =>
        validationError(`${field} does not name ${what} of this tenant`, [{ field: `body.${field}`, message: 'unknown reference', type: 'any.unknown_reference' }]);
      const created = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const template = isUuid(body.template_id) ? await requireTemplate(unit.scope, body.template_id).catch(() => null) : null;
        if (!template) throw unknownReference('template_id', 'an extraction template');
        if (body.file_id !== undefined && !(isUuid(body.file_id) && (await fileById(unit.scope, body.file_id)))) throw unknownReference('file_id', 'a file');
        const [row] = await unit.scope.insert(
          'extractions',
          {
            template_id: template.id,
            template_fields: JSON.stringify(template.fields),
            source_kind: body.file_id ? 'file' : 'text',
            file_id: body.file_id ?? null,
            input_text: body.text ?? null,
            created_by: userId,
          },
          ['id'],
        );
        unit.audit({ action: 'extraction.requested', resourceType: 'extraction', resourceId: row.id, details: { template_id: template.id, file_id: body.file_id ?? null } });
        return row.id as string;
      });
      try {
        await startExtraction(await ctx.deps.temporal.client(), tenantId, created);
      } catch (err) {
        // Never started: the job would wait forever. Mark it failed; the caller may simply retry.
        await tenantScope(ctx.deps.db, tenantId)
          .table('extractions')
          .where('id', created)
          .update({ status: 'failed', error: 'the extraction could not be started', input_text: null });
        ctx.state.log.error({ err: errorSummary(err), extraction_id: created }, 'extraction start failed');
        throw err;
      }
      ctx.status = 202;
      ctx.body = toExtraction((await findExtraction(tenantScope(ctx.deps.db, tenantId), created))!);
    },
  });

  const extraction = resourceRoutes(api, {
    path: '/:extraction_id',
    tags: ['extractions'],
    view: 'view_extractions',
    schema: extractionSchema,
    find: (scope, id) => findOr404('extraction', id, () => findExtraction(scope, id)),
    present: toExtraction,
  });
  extraction.get({ summary: 'Status of an extraction, and its record once completed', found: 'Extraction' });

  return api;
}
