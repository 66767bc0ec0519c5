/**
 * `/api/v1/privacy`: subject export and erasure (workflows), purge of old data, and the settings
 * (privacy-settings.ts). Every category comes from the registry (domain/privacy/registry.ts).
 */
import Joi from '../../domain/joi';
import { subjectHash } from '../../db/audit';
import { deleteExpiredBatch } from '../../db/privacy/categories';
import { isUuid, tenantScope } from '../../db/tenant-scope';
import { retentionCategories } from '../../domain/privacy/registry';
import { clampAuditCutoff, parseOlderThan } from '../../domain/privacy/settings';
import { exportProgress, startPrivacyErasure, startPrivacyExport } from '../../orchestration/privacy';
import { AppContext, userOf } from '../context';
import { notFound, validationError } from '../../domain/errors';
import { actorOf, runMutation } from '../mutation';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { findOr404 } from '../../db/find-or-404';
import { registerPrivacySettingsRoutes } from './privacy-settings';
import { idRef } from '../validation';
import { isoTime } from '../../domain/time';

const PURGE_BATCH = 1000;

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

type ExportRow = Record<string, any>;

/** An export past its URL's validity is `expired`; its URL is no longer handed out. */
function exportStatus(row: ExportRow, now: Date): string {
  return row.status === 'ready' && new Date(row.expires_at) <= now ? 'expired' : row.status;
}

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

function toErasure(row: Record<string, any>) {
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

async function findContact(ctx: AppContext, tenantId: string, subjectId: string): Promise<boolean> {
  return isUuid(subjectId) && !!(await tenantScope(ctx.deps.db, tenantId).table('contacts').where({ id: subjectId }).first('id'));
}

async function progressOf(ctx: AppContext, row: ExportRow, now: Date) {
  const status = exportStatus(row, now);
  if (status === 'pending' || status === 'running') {
    // Progress is informative: Temporal being unreachable must not fail the status read.
    const client = await ctx.deps.temporal.client().catch(() => null);
    return (client && (await exportProgress(client, row.tenant_id, row.id))) ?? { phase: 'queued', percent: 0 };
  }
  return { phase: status, percent: 100 };
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
      const { tenantId } = userOf(ctx);
      if (!(await findContact(ctx, tenantId, body.subject_id))) throw notFound('subject');
      const now = new Date();
      const { row, created } = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        await unit.tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 9))', [`privacy-export:${tenantId}:${body.subject_id}`]);
        const latest = await unit.scope
          .table('privacy_exports')
          .where({ subject_id: body.subject_id, format: body.format })
          .whereIn('status', ['pending', 'running', 'ready'])
          .orderBy('created_at', 'desc')
          .first();
        const reusable = latest && exportStatus(latest, now) !== 'expired';
        const [exportRow] = reusable ? [latest] : await unit.scope.insert('privacy_exports', { subject_id: body.subject_id, format: body.format });
        unit.audit({
          action: reusable ? 'privacy.export.reused' : 'privacy.export.requested',
          resourceType: 'privacy_export',
          resourceId: exportRow.id,
          subjectId: body.subject_id,
        });
        return { row: exportRow as ExportRow, created: !reusable };
      });
      // Also for a reused pending export: its start may have failed after the commit (idempotent by id).
      if (created || row.status === 'pending') await startPrivacyExport(await ctx.deps.temporal.client(), tenantId, row.id);
      ctx.status = 202;
      ctx.body = toExport(row, now, await progressOf(ctx, row, now));
    },
  });

  const exportResource = resourceRoutes<ExportRow & { id: string }>(api, {
    path: '/exports/:export_id',
    tags: ['privacy'],
    view: 'view_privacy',
    schema: exportSchema,
    find: (scope, id) => findOr404('export', id, () => scope.table('privacy_exports').where({ id }).first()),
  });
  exportResource.get({ summary: 'Status, progress and (when ready) the signed URL of an export', found: 'The export', notFound: 'Unknown export' }, async (row, _scope, ctx) => {
    const now = new Date();
    return toExport(row, now, await progressOf(ctx, row, now));
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
      const { tenantId } = userOf(ctx);
      const exists = await findContact(ctx, tenantId, body.subject_id);
      const hash = isUuid(body.subject_id) ? await subjectHash(ctx.deps.db, tenantId, body.subject_id) : null;
      if (!exists) {
        // Erasing twice is harmless: an erased subject answers with its last erasure.
        const previous = hash && (await tenantScope(ctx.deps.db, tenantId).table('privacy_erasures').where({ subject_hash: hash }).orderBy('created_at', 'desc').first());
        if (!previous) throw notFound('subject');
        ctx.status = 202;
        ctx.body = toErasure(previous);
        return;
      }
      const row = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const [erasure] = await unit.scope.insert('privacy_erasures', { subject_hash: hash, reason: body.reason, preserve_audit: body.preserve_audit });
        unit.audit({
          action: 'privacy.erasure.requested',
          resourceType: 'privacy_erasure',
          resourceId: erasure.id,
          subjectId: body.subject_id,
          details: { preserve_audit: body.preserve_audit },
        });
        return erasure;
      });
      await startPrivacyErasure(await ctx.deps.temporal.client(), { tenantId, erasureId: row.id, subjectId: body.subject_id, preserveAudit: body.preserve_audit });
      ctx.status = 202;
      ctx.body = toErasure(row);
    },
  });

  const erasure = resourceRoutes<Record<string, any> & { id: string }>(api, {
    path: '/erasures/:erasure_id',
    tags: ['privacy'],
    view: 'view_privacy',
    schema: erasureSchema,
    find: (scope, id) => findOr404('erasure', id, () => scope.table('privacy_erasures').where({ id }).first()),
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
      const { tenantId } = userOf(ctx);
      const now = new Date();
      const cutoff = parseOlderThan(body.older_than, now);
      if (!cutoff) {
        throw validationError('older_than must be an ISO 8601 duration (P90D) or a past date', [
          { field: 'body.older_than', message: 'not an ISO 8601 duration or past date', type: 'string.older_than' },
        ]);
      }
      const auditCutoff = clampAuditCutoff(cutoff, now);
      const counts: Record<string, number> = {};
      for (const category of retentionCategories()) {
        const before = category.link.kind === 'audit' ? auditCutoff : cutoff;
        counts[category.name] = counts[category.name] ?? 0;
        for (;;) {
          const n = await deleteExpiredBatch(ctx.deps.db, tenantId, category, [{ before }], PURGE_BATCH);
          counts[category.name] += n;
          if (n < PURGE_BATCH) break;
        }
      }
      await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        unit.audit({ action: 'privacy.purge', resourceType: 'privacy_purge', resourceId: null, details: { cutoff: cutoff.toISOString(), counts } });
      });
      ctx.body = { cutoff: cutoff.toISOString(), audit_cutoff: auditCutoff.toISOString(), counts };
    },
  });

  return api;
}
