/**
 * `/api/v1/privacy`: subject export and erasure (workflows), purge of old data, and the settings
 * (privacy-settings.ts). Every category comes from the registry (domain/privacy/registry.ts).
 */
import Joi from '../../domain/joi';
import { ErasureRow, exportProgressOf, ExportRow, exportStatus, purgeOld, requestErasure, requestExport, requireErasure, requireExport } from '../../services/privacy';
import { userUnitContextOf } from '../mutation';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { registerPrivacySettingsRoutes } from './privacy-settings';
import { idRef } from '../validation';
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
    tags: ['privacy'],
    auth: 'user',
    permission: 'manage_privacy',
    body: Joi.object({ subject_id: idRef.required(), format: Joi.string().valid('json').default('json') }),
    responses: { 202: { description: 'The export (a ready one of the last 24 h is returned as is)', schema: exportSchema }, 404: { description: 'Unknown subject' } },
    handler: async (ctx, { body }) => {
      const now = new Date();
      const { row, progress } = await requestExport(ctx.deps, userUnitContextOf(ctx), body, now);
      ctx.status = 202;
      ctx.body = toExport(row, now, progress);
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
    body: Joi.object({ subject_id: idRef.required(), reason: Joi.string().trim().min(1).max(1000).required(), preserve_audit: Joi.boolean().required() }),
    responses: { 202: { description: 'The erasure, running or (for an already erased subject) its last record', schema: erasureSchema }, 404: { description: 'Unknown subject' } },
    handler: async (ctx, { body }) => {
      const row = await requestErasure(ctx.deps, userUnitContextOf(ctx), body);
      ctx.status = 202;
      ctx.body = toErasure(row);
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
