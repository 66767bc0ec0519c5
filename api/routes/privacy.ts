/**
 * `/api/v1/privacy`: subject export and erasure (workflows), purge of old data, and the settings
 * (privacy-settings.ts). Every category comes from the registry (domain/privacy/registry.ts).
 */
import Joi from '../../domain/joi';
import { ErasureRow, exportProgressOf, ExportRow, exportStatus, purgeOld, requireErasure, requireExport } from '../../services/privacy';
import { eraseSubjects, exportSubjects } from '../../services/privacy-subjects';
import { userUnitContextOf } from '../mutation';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { registerPrivacySettingsRoutes } from './privacy-settings';
import { isoTime } from '../../domain/time';

const exportSchema = Joi.object({
  export_id: Joi.string(),
  subject_id: Joi.string(),
  format: Joi.string(),
  status: Joi.string().valid('pending', 'running', 'ready', 'failed', 'expired'),
  progress: Joi.object({ phase: Joi.string(), percent: Joi.number() }).allow(null),
  url: Joi.string().allow(null),
  expires_at: Joi.string().isoDate().allow(null),
  created_at: Joi.string().isoDate(),
  ready_at: Joi.string().isoDate().allow(null),
  manifest: Joi.object().allow(null),
});
const erasureSchema = Joi.object({
  erasure_id: Joi.string(),
  status: Joi.string().valid('running', 'completed', 'failed'),
  reason: Joi.string(),
  preserve_audit: Joi.boolean(),
  counts: Joi.object().pattern(Joi.string(), Joi.number()),
  created_at: Joi.string().isoDate(),
  completed_at: Joi.string().isoDate().allow(null),
});

/** `subject_id` of a request: the identity it names, resolved to the contacts it matches. */
const subjectIdentity = Joi.string()
  .trim()
  .max(320)
  .required()
  .description(
    "The data subject: a contact's id (UUID), an e-mail address (case-insensitive) or an international phone number (`+` or `00`, normalised to E.164). " +
      'An identity matching no contact of the tenant is 404; one matching several contacts acts on each of them.',
  );
/** What every subject request answers besides its records: which contacts the identity matched. */
const matchedKeys = {
  matched: Joi.number().integer().min(1).description('How many contacts the identity matched'),
  subject_ids: Joi.array().items(Joi.string()).description('The ids of the matched contacts, oldest first'),
};
const exportAnswerSchema = exportSchema.keys({
  ...matchedKeys,
  exports: Joi.array().items(exportSchema).description("Every matched contact's export (the top-level fields are the first one's)"),
});
const erasureAnswerSchema = erasureSchema.keys({
  ...matchedKeys,
  erasures: Joi.array().items(erasureSchema).description("Every matched contact's erasure (the top-level fields are the first one's)"),
});

function toExport(row: ExportRow, now: Date, progress: { phase: string; percent: number } | null) {
  const status = exportStatus(row, now);
  return {
    export_id: row.id,
    subject_id: row.subject_id,
    format: row.format,
    status,
    progress,
    url: status === 'ready' ? row.url : null,
    expires_at: status === 'ready' ? isoTime(row.expires_at) : null,
    created_at: isoTime(row.created_at) as string,
    ready_at: isoTime(row.ready_at),
    manifest: status === 'ready' ? row.manifest : null,
  };
}

function toErasure(row: ErasureRow) {
  return {
    erasure_id: row.id,
    status: row.status,
    reason: row.reason,
    preserve_audit: row.preserve_audit,
    counts: row.counts,
    created_at: isoTime(row.created_at) as string,
    completed_at: isoTime(row.completed_at),
  };
}

export function privacyRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/privacy');
  registerPrivacySettingsRoutes(api);

  api.route<unknown, unknown, { subject_id: string; format: 'json' }>({
    method: 'post',
    path: '/export-subject',
    summary: "Export a data subject's data as a ZIP (signed URL valid 24 h)",
    description:
      'Waits a few seconds (PRIVACY_EXPORT_WAIT_MS) for the export: ready within the wait (or a ready one of the last 24 h, returned as is), ' +
      'the answer is 200 with `url` and `expires_at`; otherwise 202 with the export id and a `Location` header naming the export to poll ' +
      '(GET /privacy/exports/{export_id}). With several matched contacts, 200 only when every export is ready; `Location` names the first one that is not.',
    tags: ['privacy'],
    auth: 'user',
    permission: 'manage_privacy',
    body: Joi.object({ subject_id: subjectIdentity, format: Joi.string().valid('json').default('json') }),
    responses: {
      200: { description: 'The export is ready: `url` (signed, 24 h) and `expires_at`', schema: exportAnswerSchema },
      202: { description: 'The export is still being built: poll the `Location` header (the export)', schema: exportAnswerSchema },
      404: { description: 'No contact of the tenant matches the identity' },
      422: { description: 'subject_id is not a UUID, an e-mail address or an international phone number' },
    },
    handler: async (ctx, { body }) => {
      const result = await exportSubjects(ctx.deps, userUnitContextOf(ctx), body, ctx.deps.config.privacy.exportWaitMs);
      const now = new Date();
      const exports = result.exports.map(({ row, progress }) => toExport(row, now, progress));
      const waiting = exports.find((e) => e.status !== 'ready');
      ctx.status = result.ready ? 200 : 202;
      if (waiting) ctx.set('Location', `/api/v1/privacy/exports/${waiting.export_id}`);
      ctx.body = { ...exports[0]!, matched: result.subjectIds.length, subject_ids: result.subjectIds, exports };
    },
  });

  const exportResource = resourceRoutes<ExportRow>(api, {
    path: '/exports/:export_id',
    tags: ['privacy'],
    view: 'view_privacy',
    schema: exportSchema,
    find: requireExport,
  });
  exportResource.get({ summary: 'Status, progress and (when ready) the signed URL of an export', found: 'The export', notFound: 'Unknown export' }, async (row, _scope, ctx) => {
    const now = new Date();
    return toExport(row, now, await exportProgressOf(ctx.deps.temporal, row, now));
  });

  api.route<unknown, unknown, { subject_id: string; reason: string; preserve_audit: boolean }>({
    method: 'post',
    path: '/erase-subject',
    summary: 'Erase every document linked to a data subject',
    tags: ['privacy'],
    auth: 'user',
    permission: 'manage_privacy',
    body: Joi.object({ subject_id: subjectIdentity, reason: Joi.string().trim().min(1).max(1000).required(), preserve_audit: Joi.boolean().required() }),
    responses: {
      202: { description: 'The erasure of each matched contact, running or (for an already erased contact id) its last record', schema: erasureAnswerSchema },
      404: { description: 'No contact of the tenant matches the identity' },
      422: { description: 'subject_id is not a UUID, an e-mail address or an international phone number' },
    },
    handler: async (ctx, { body }) => {
      const result = await eraseSubjects(ctx.deps, userUnitContextOf(ctx), body);
      const erasures = result.erasures.map(toErasure);
      ctx.status = 202;
      ctx.body = { ...erasures[0]!, matched: result.subjectIds.length, subject_ids: result.subjectIds, erasures };
    },
  });

  const erasure = resourceRoutes<ErasureRow>(api, {
    path: '/erasures/:erasure_id',
    tags: ['privacy'],
    view: 'view_privacy',
    schema: erasureSchema,
    find: requireErasure,
    present: toErasure,
  });
  erasure.get({ summary: 'An erasure record: status and what was erased per category', found: 'The erasure', notFound: 'Unknown erasure' });

  api.route<unknown, unknown, { older_than: string }>({
    method: 'post',
    path: '/purge-old',
    summary: 'Delete data older than a duration (ISO 8601, e.g. P90D) or a date, now',
    tags: ['privacy'],
    auth: 'user',
    permission: 'manage_privacy',
    body: Joi.object({ older_than: Joi.string().max(64).required() }),
    responses: {
      200: {
        description: 'Rows deleted per category; the audit trail is never purged below 365 days',
        schema: Joi.object({ cutoff: Joi.string().isoDate(), audit_cutoff: Joi.string().isoDate(), counts: Joi.object().pattern(Joi.string(), Joi.number()) }),
      },
    },
    handler: async (ctx, { body }) => {
      const { cutoff, auditCutoff, counts } = await purgeOld(ctx.deps.db, userUnitContextOf(ctx), body.older_than, new Date());
      ctx.body = { cutoff: cutoff.toISOString(), audit_cutoff: auditCutoff.toISOString(), counts };
    },
  });

  return api;
}
