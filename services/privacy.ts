/**
 * Subject export and erasure (workflows) and the purge of old data, without HTTP: reads take the
 * tenant's scope, changes run their own unit of work. api/routes/privacy.ts is the HTTP face.
 */
import { subjectHash } from '../db/audit';
import { runTenantScope } from '../db/db-scope';
import { findOr404 } from '../db/find-or-404';
import type { Db } from '../db/knex';
import { deleteExpiredBatch } from '../db/privacy/categories';
import {
  ErasureRow,
  erasureById,
  exportById,
  ExportRow,
  insertErasure,
  insertExport,
  latestErasureOf,
  latestLiveExport,
  lockSubjectExports,
  subjectExists,
} from '../db/queries/privacy';
import { isUuid, tenantScope, type TenantScope } from '../db/tenant-scope';
import { runUnit, type UnitContext } from '../db/unit-of-work';
import { AppError, notFound, validationError } from '../domain/errors';
import { EXPORT_LINK_TTL_MS, exportLinkSignatureValid, exportLinkUrl, linkExpiry } from '../domain/privacy/export-link';
import { retentionCategories } from '../domain/privacy/registry';
import { clampAuditCutoff, parseOlderThan } from '../domain/privacy/settings';
import { isoTime } from '../domain/time';
import type { ObjectStore } from '../infra/object-store';
import type { TemporalGateway } from '../infra/temporal';
import { callTemporal, readFromTemporal } from '../orchestration/temporal-call';
import { exportProgress, startPrivacyErasure, startPrivacyExport } from '../orchestration/privacy';

export type { ErasureRow, ExportRow };

const PURGE_BATCH = 1000;

type Deps = { db: Db; temporal: TemporalGateway };
export type ExportProgress = { phase: string; percent: number };

/** How long a client waits before asking an export's link again while the export is built (Retry-After). */
export const EXPORT_RETRY_AFTER_SECONDS = 5;
/** Lifetime of the object store's presigned URL a link redirects to: enough to start the download, never past the link's expiry. */
export const ARCHIVE_REDIRECT_TTL_SECONDS = 300;

/** An export past its link's validity is `expired` (a new request builds a new one), unless it failed first. */
export function exportStatus(row: ExportRow, now: Date): string {
  return row.status !== 'failed' && new Date(row.expires_at) <= now ? 'expired' : row.status;
}

/** What the API needs to hand out an export's link: its public base URL and the signing key. */
export interface ExportLinks {
  publicUrl: string;
  key: Buffer;
}

/** The export's signed link (the same for every call about one export). */
export function exportLinkOf(links: ExportLinks, row: ExportRow): string {
  return exportLinkUrl(links.publicUrl, links.key, { tenantId: row.tenant_id, exportId: row.id, expiresEpochSeconds: linkExpiry(new Date(row.expires_at)) });
}

/** A link as it arrives: its path id and query, not trusted until its signature is checked. */
export interface PresentedExportLink {
  exportId: string;
  tenantId: string;
  expires: number;
  signature: string;
}

/**
 * Where a presented link leads at `now`: the object store's presigned URL of the ZIP (short-lived,
 * never past the link's own expiry). The signature is checked before anything is read; then an
 * expired link is 410 EXPORT_EXPIRED, an export still being built 503 EXPORT_NOT_READY with
 * `retry_after`, a failed one 410 EXPORT_FAILED, an erased one 404.
 */
export async function openExportArchive(deps: Deps & { objectStore: ObjectStore; linkKey: Buffer }, link: PresentedExportLink, now: Date): Promise<{ url: string }> {
  const claims = { tenantId: link.tenantId, exportId: link.exportId, expiresEpochSeconds: link.expires };
  if (!exportLinkSignatureValid(deps.linkKey, claims, link.signature)) {
    throw new AppError('EXPORT_LINK_INVALID', 'this export link is not valid: use the url an export answered, unchanged', {}, 403);
  }
  // The link carries the row's expiry, signed: no read is needed to refuse an expired one.
  const expiry = new Date(link.expires * 1000);
  if (expiry <= now) {
    throw new AppError(
      'EXPORT_EXPIRED',
      'this export link has expired (links are valid 24 h): request a new export with POST /api/v1/privacy/export-subject',
      { expired_at: isoTime(expiry) },
      410,
    );
  }
  // Signed for this tenant: its rows only from here, the database's wall as well as the filter.
  const row = await runTenantScope(link.tenantId, () => exportById(tenantScope(deps.db, link.tenantId), link.exportId));
  if (!row) throw notFound('export');
  if (row.status === 'failed') {
    throw new AppError('EXPORT_FAILED', 'this export failed: request a new one with POST /api/v1/privacy/export-subject', {}, 410);
  }
  if (row.status !== 'ready' || !row.object_key) {
    throw new AppError(
      'EXPORT_NOT_READY',
      `the export is still being built: retry after ${EXPORT_RETRY_AFTER_SECONDS} s`,
      { retry_after: EXPORT_RETRY_AFTER_SECONDS, status: row.status, progress: await exportProgressOf(deps.temporal, row, now) },
      503,
    );
  }
  const ttl = Math.max(1, Math.min(ARCHIVE_REDIRECT_TTL_SECONDS, Math.floor((expiry.getTime() - now.getTime()) / 1000)));
  const disposition = { 'response-content-disposition': `attachment; filename="export-${row.id}.zip"`, 'response-content-type': 'application/zip' };
  return { url: await deps.objectStore.publicClient.presignedGetObject(deps.objectStore.bucket, row.object_key, ttl, disposition, now) };
}

/** Where the export's workflow is; a finished export is at 100 %. */
export async function exportProgressOf(temporal: TemporalGateway, row: ExportRow, now: Date): Promise<ExportProgress> {
  const status = exportStatus(row, now);
  if (status === 'pending' || status === 'running') {
    // Progress is informative: Temporal being unreachable must not fail the status read.
    return (await readFromTemporal(temporal, (client) => exportProgress(client, row.tenant_id, row.id))) ?? { phase: 'queued', percent: 0 };
  }
  return { phase: status, percent: 100 };
}

/**
 * Requests a subject's export (404 for an unknown subject): a pending, running or unexpired ready
 * export is reused, otherwise a new one is recorded and its workflow started.
 */
export async function requestExport(
  deps: Deps,
  context: UnitContext,
  order: { subject_id: string; format: string },
  now: Date,
): Promise<{ row: ExportRow; progress: ExportProgress }> {
  const { tenantId } = context;
  if (!(await subjectExists(tenantScope(deps.db, tenantId), order.subject_id))) throw notFound('subject');
  const { row, created } = await runUnit(deps.db, context, async (unit) => {
    await lockSubjectExports(unit.tx, tenantId, order.subject_id);
    const latest = await latestLiveExport(unit.scope, order.subject_id, order.format);
    const reusable = latest && exportStatus(latest, now) !== 'expired';
    const exportRow = reusable ? latest : await insertExport(unit.scope, order.subject_id, order.format, EXPORT_LINK_TTL_MS);
    unit.audit({
      action: reusable ? 'privacy.export.reused' : 'privacy.export.requested',
      resourceType: 'privacy_export',
      resourceId: exportRow.id,
      subjectId: order.subject_id,
    });
    return { row: exportRow, created: !reusable };
  });
  // Also for a reused pending export: its start may have failed after the commit (idempotent by id).
  if (created || row.status === 'pending') await callTemporal(deps.temporal, 'the export could not be started', (client) => startPrivacyExport(client, tenantId, row.id));
  return { row, progress: await exportProgressOf(deps.temporal, row, now) };
}

export function requireExport(scope: TenantScope, id: string): Promise<ExportRow> {
  return findOr404('export', id, () => exportById(scope, id));
}

export function requireErasure(scope: TenantScope, id: string): Promise<ErasureRow> {
  return findOr404('erasure', id, () => erasureById(scope, id));
}

/**
 * Erases every document linked to the subject (a workflow). Erasing twice is harmless: an erased
 * subject answers with its last erasure; one never known is 404.
 */
export async function requestErasure(deps: Deps, context: UnitContext, order: { subject_id: string; reason: string; preserve_audit: boolean }): Promise<ErasureRow> {
  const { tenantId } = context;
  const scope = tenantScope(deps.db, tenantId);
  const exists = await subjectExists(scope, order.subject_id);
  const hash = isUuid(order.subject_id) ? await subjectHash(deps.db, tenantId, order.subject_id) : null;
  if (!exists) {
    const previous = hash && (await latestErasureOf(scope, hash));
    if (!previous) throw notFound('subject');
    return previous;
  }
  const row = await runUnit(deps.db, context, async (unit) => {
    const erasure = await insertErasure(unit.scope, { subjectHash: hash, reason: order.reason, preserveAudit: order.preserve_audit });
    unit.audit({
      action: 'privacy.erasure.requested',
      resourceType: 'privacy_erasure',
      resourceId: erasure.id,
      subjectId: order.subject_id,
      details: { preserve_audit: order.preserve_audit },
    });
    return erasure;
  });
  await callTemporal(deps.temporal, 'the erasure could not be started', (client) =>
    startPrivacyErasure(client, { tenantId, erasureId: row.id, subjectId: order.subject_id, preserveAudit: order.preserve_audit }),
  );
  return row;
}

/**
 * Deletes every retention category's rows older than `olderThan` (an ISO 8601 duration or a past
 * date; 422 otherwise) in batches, the audit trail never below its floor, then records the purge.
 */
export async function purgeOld(db: Db, context: UnitContext, olderThan: string, now: Date): Promise<{ cutoff: Date; auditCutoff: Date; counts: Record<string, number> }> {
  const cutoff = parseOlderThan(olderThan, now);
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
      const n = await deleteExpiredBatch(db, context.tenantId, category, [{ before }], PURGE_BATCH);
      counts[category.name] += n;
      if (n < PURGE_BATCH) break;
    }
  }
  await runUnit(db, context, async (unit) => {
    unit.audit({ action: 'privacy.purge', resourceType: 'privacy_purge', resourceId: null, details: { cutoff: cutoff.toISOString(), counts } });
  });
  return { cutoff, auditCutoff, counts };
}
