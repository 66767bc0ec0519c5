/**
 * `/api/v1/privacy`: subject export and erasure (workflows), purge of old data, and the settings
 * (privacy-settings.ts). Every category comes from the registry (domain/privacy/registry.ts).
 */
import Joi from '../../domain/joi';
import type { Permission } from '../../domain/auth/permissions';
import {
  ErasureRow,
  EXPORT_RETRY_AFTER_SECONDS,
  exportLinkOf,
  ExportLinks,
  exportProgressOf,
  ExportRow,
  exportStatus,
  openExportArchive,
  purgeOld,
  requireErasure,
  requireExport,
} from '../../services/privacy';
import { eraseSubjects, exportSubjects } from '../../services/privacy-subjects';
import { AppContext } from '../context';
import { userUnitContextOf } from '../mutation';
import { ApiRouter } from '../route';
import { resourceRoutes } from '../resource-routes';
import { idRef } from '../validation';
import { registerPrivacySettingsRoutes } from './privacy-settings';
import { isoTime } from '../../domain/time';
import { AppError } from '../../domain/errors';

/** Who may request an export: only they receive its link (the link is the download's credential). */
const REQUEST_EXPORTS: Permission = 'manage_privacy';

const exportSchema = Joi.object({
  export_id: Joi.string(),
  subject_id: Joi.string(),
  format: Joi.string(),
  status: Joi.string().valid('pending', 'running', 'ready', 'failed', 'expired'),
  progress: Joi.object({ phase: Joi.string(), percent: Joi.number() }).allow(null),
  url: Joi.string()
    .allow(null)
    .description(
      'The signed download link (GET, no token: the link is the credential; keep it private). Valid until `expires_at`; it serves the ZIP once the export is ready and answers 503 with Retry-After until then. ' +
        'Null once expired or failed, and for callers without manage_privacy.',
    ),
  expires_at: Joi.string().isoDate().description('When the link stops working and the ZIP is deleted: 24 h after the export was requested'),
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
    "The data subject: a contact's id (UUID), an e-mail address (case-insensitive) or a phone number: international (`+` or `00`, normalised to E.164) " +
      "or national (`0612 345 678`), read with the tenant's default country (privacy settings, `subjects.default_country`). " +
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

/** The export as answered; its link only when `links` is given (the caller may request exports) and the link still leads somewhere. */
function toExport(row: ExportRow, now: Date, progress: { phase: string; percent: number } | null, links: ExportLinks | null) {
  const status = exportStatus(row, now);
  const linked = links !== null && (status === 'pending' || status === 'running' || status === 'ready');
  return {
    export_id: row.id,
    subject_id: row.subject_id,
    format: row.format,
    status,
    progress,
    url: linked ? exportLinkOf(links, row) : null,
    expires_at: isoTime(row.expires_at) as string,
    created_at: isoTime(row.created_at) as string,
    ready_at: isoTime(row.ready_at),
    manifest: status === 'ready' ? row.manifest : null,
  };
}

const linksFor = (ctx: AppContext): ExportLinks | null => {
  const principal = ctx.state.principal;
  return principal?.kind === 'user' && principal.permissions.includes(REQUEST_EXPORTS) ? ctx.deps.exportLinks : null;
};

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
    summary: "Export a data subject's data as a ZIP: a signed link, valid 24 h, answered at once",
    description:
      'Answers at once with each export and its signed `url` (valid until `expires_at`, 24 h after the request): the link serves the ZIP once the export is built ' +
      `and answers 503 with Retry-After (${EXPORT_RETRY_AFTER_SECONDS} s) until then. 200 when every export is ready (a ready one of the last 24 h is returned as is), ` +
      'otherwise 202 with a `Location` header naming the export whose status to poll (GET /privacy/exports/{export_id}). A request within 24 h answers the same export and link; after it, a new export.',
    tags: ['privacy'],
    auth: 'user',
    permission: REQUEST_EXPORTS,
    body: Joi.object({ subject_id: subjectIdentity, format: Joi.string().valid('json').default('json') }),
    responses: {
      200: { description: 'Every export is ready: its `url` serves the ZIP now', schema: exportAnswerSchema },
      202: { description: 'An export is still being built: its `url` serves the ZIP once it is ready; `Location` names the export to poll', schema: exportAnswerSchema },
      404: { description: 'No contact of the tenant matches the identity' },
      422: { description: "subject_id is not a UUID, an e-mail address or a phone number (international, or national with the tenant's default country)" },
    },
    handler: async (ctx, { body }) => {
      const result = await exportSubjects(ctx.deps, userUnitContextOf(ctx), body);
      const now = new Date();
      const exports = result.exports.map(({ row, progress }) => toExport(row, now, progress, ctx.deps.exportLinks));
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
  exportResource.get(
    { summary: 'Status, progress and (for callers who may request exports) the signed link of an export', found: 'The export', notFound: 'Unknown export' },
    async (row, _scope, ctx) => {
      const now = new Date();
      return toExport(row, now, await exportProgressOf(ctx.deps.temporal, row, now), linksFor(ctx));
    },
  );

  api.route<{ export_id: string }, { tenant: string; expires: number; signature: string }>({
    method: 'get',
    path: '/exports/:export_id/archive',
    summary: "An export's ZIP, through the signed link an export answered (no token: the link is the credential)",
    description:
      'The `url` of an export, used as it is. Ready: 302 to the object store (a presigned URL valid 5 minutes). Still being built: 503 EXPORT_NOT_READY with ' +
      '`Retry-After` (and `Refresh`, which browsers follow) and `retry_after`. Failed: 410 EXPORT_FAILED. Past `expires_at`: 410 EXPORT_EXPIRED (request a new export). ' +
      'A link altered in any part: 403 EXPORT_LINK_INVALID.',
    tags: ['privacy'],
    auth: 'none',
    params: Joi.object({ export_id: idRef.required() }),
    query: Joi.object({
      tenant: idRef.required(),
      expires: Joi.number().integer().min(0).max(99_999_999_999).required().description('Unix seconds: when the link stops working'),
      signature: Joi.string().max(128).required().description('HMAC-SHA256 of the tenant, the export and the expiry (base64url)'),
    }),
    responses: {
      302: { description: 'The ZIP: `Location` is a presigned URL of the object store, valid 5 minutes' },
      403: { description: 'EXPORT_LINK_INVALID: the signature does not match the tenant, export and expiry' },
      404: { description: 'The export no longer exists (its subject was erased)' },
      410: { description: 'EXPORT_EXPIRED: the link is past its 24 h (request a new export); EXPORT_FAILED: the export failed (request a new one)' },
      503: { description: `EXPORT_NOT_READY: still being built; retry after \`Retry-After\` seconds (${EXPORT_RETRY_AFTER_SECONDS}); \`status\`, \`progress\`` },
    },
    handler: async (ctx, { params, query }) => {
      const deps = { db: ctx.deps.db, temporal: ctx.deps.temporal, objectStore: ctx.deps.objectStore, linkKey: ctx.deps.exportLinks.key };
      try {
        const { url } = await openExportArchive(deps, { exportId: params.export_id, tenantId: query.tenant, expires: query.expires, signature: query.signature }, new Date());
        ctx.redirect(url);
      } catch (err) {
        // A browser holding the link reloads it by itself (Refresh), as a client does after Retry-After.
        if (err instanceof AppError && err.code === 'EXPORT_NOT_READY') ctx.set('Refresh', String(EXPORT_RETRY_AFTER_SECONDS));
        throw err;
      }
    },
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
