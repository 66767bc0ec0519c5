/**
 * `/api/v1/extractions` (issue 8): extraction jobs (a file or a text read with a template, run as
 * the workflow `extraction/<tenant>/<extraction>`) and the records they store, which people read,
 * correct (the history keeps every original value) and delete. `/records` is registered before
 * `/:extraction_id`.
 */
import Joi from '../../domain/joi';
import type { Schema } from 'joi';
import {
  correctionsOf,
  correctRecord,
  deleteRecord,
  ExtractionFilter,
  ExtractionOrder,
  listExtractions,
  listRecords,
  RecordCorrection,
  RecordFilter,
  requestExtraction,
  requireExtraction,
  requireRecord,
} from '../../services/extractions';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation, userUnitContextOf } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { extractionSchema, idParams, recordSchema, recordSummarySchema, toExtraction, toRecord, toRecordSummary } from '../resources/extraction';
import { idRef } from '../validation';

/** Characters of text a request may carry (the JSON body is limited to 1 MB anyway). */
export const MAX_TEXT_INPUT = 900_000;

const page = (item: Schema) => pageOf(item);
/** What a template field holds: a scalar, or (array fields) a list of scalars; null clears it. */
const correctedScalar = Joi.alternatives(Joi.string().allow('').max(10_000), Joi.number(), Joi.boolean());
// null as a branch, not `.allow(null)`, which joi-to-json writes as a conflicting `type: null` beside the branches.
const correctedValue = Joi.alternatives(correctedScalar, Joi.array().items(correctedScalar).max(1_000), Joi.valid(null));

function registerRecordRoutes(api: ApiRouter): void {
  api.route<unknown, PageRequest & RecordFilter>({
    method: 'get',
    path: '/records',
    summary: 'List extracted records',
    tags: ['extractions'],
    auth: 'user',
    permission: 'view_extractions',
    query: Joi.object({ ...pageQuery, template_id: idRef, subject_contact_id: idRef }),
    responses: { 200: { description: 'A page of records', schema: page(recordSummarySchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listRecords(tenantScopeOf(ctx), query, query), toRecordSummary);
    },
  });

  const record = resourceRoutes(api, {
    path: '/records/:record_id',
    tags: ['extractions'],
    view: 'view_extractions',
    schema: recordSchema,
    find: requireRecord,
  });
  record.get({ summary: 'Get an extracted record with its correction history', found: 'Record' }, async (row, scope) => toRecord(row, await correctionsOf(scope, row.id)));

  api.route<{ record_id: string }, unknown, RecordCorrection>({
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
      const row = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => correctRecord(unit, params.record_id, userId, body));
      ctx.body = toRecord(row, await correctionsOf(tenantScopeOf(ctx), row.id));
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
      await runMutation(ctx, tenantId, actorOf(ctx), (unit) => deleteRecord(unit, params.record_id));
      ctx.status = 204;
    },
  });
}

export function extractionRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/extractions');
  // Static paths first: /records must not be taken for an :extraction_id.
  registerRecordRoutes(api);

  api.route<unknown, PageRequest & ExtractionFilter>({
    method: 'get',
    path: '/',
    summary: 'List extraction jobs',
    tags: ['extractions'],
    auth: 'user',
    permission: 'view_extractions',
    query: Joi.object({ ...pageQuery, status: Joi.string().valid('queued', 'running', 'completed', 'failed'), template_id: idRef }),
    responses: { 200: { description: 'A page of extraction jobs', schema: page(extractionSchema) } },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listExtractions(tenantScopeOf(ctx), query, query), toExtraction);
    },
  });

  api.route<unknown, unknown, ExtractionOrder>({
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
      const row = await requestExtraction({ ...ctx.deps, log: ctx.state.log }, userUnitContextOf(ctx), body);
      ctx.status = 202;
      ctx.body = toExtraction(row);
    },
  });

  const extraction = resourceRoutes(api, {
    path: '/:extraction_id',
    tags: ['extractions'],
    view: 'view_extractions',
    schema: extractionSchema,
    find: requireExtraction,
    present: toExtraction,
  });
  extraction.get({ summary: 'Status of an extraction, and its record once completed', found: 'Extraction' });

  return api;
}
