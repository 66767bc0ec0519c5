/** Subject exports and erasures (the privacy API's records). */
import type { Knex } from 'knex';
import type { Queryable } from '../knex';
import { TenantScope, isUuid } from '../tenant-scope';
import type { SubjectIdentity } from '../../domain/privacy/subject-identity';

export interface ExportRow {
  id: string;
  tenant_id: string;
  subject_id: string;
  format: string;
  status: 'pending' | 'running' | 'ready' | 'failed';
  /** The archive in the object store, once built; cleared when its link expires and it is deleted. */
  object_key: string | null;
  size_bytes: string | null;
  manifest: Record<string, unknown> | null;
  error: string | null;
  created_at: Date;
  ready_at: Date | null;
  /** When its link stops working and its archive is deleted: 24 h after its creation. */
  expires_at: Date;
}

export interface ErasureRow {
  id: string;
  tenant_id: string;
  subject_hash: string;
  reason: string;
  preserve_audit: boolean;
  status: 'running' | 'completed' | 'failed';
  counts: Record<string, number>;
  created_at: Date;
  completed_at: Date | null;
}

/** Whether the id names a contact (a data subject) of the tenant; an id that is not a UUID names none. */
export async function subjectExists(scope: TenantScope, subjectId: string): Promise<boolean> {
  return isUuid(subjectId) && !!(await scope.table('contacts').where({ id: subjectId }).first('id'));
}

/**
 * The tenant's contacts an e-mail address (case-insensitive, as the contacts index compares) or an
 * E.164 phone names, oldest first. Phones are compared by their digits (a leading 00 read as +),
 * so a number stored with separators (`+34 600 111 222`) is found too, and may be a second match.
 */
export async function contactIdsByIdentity(scope: TenantScope, identity: Exclude<SubjectIdentity, { kind: 'id' }>): Promise<string[]> {
  const q = scope.table('contacts').orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (identity.kind === 'email') q.whereNotNull('email').whereRaw('lower(email) = ?', [identity.email]);
  else q.whereNotNull('phone').whereRaw(`regexp_replace(regexp_replace(phone, '\\D', '', 'g'), '^00', '') = ?`, [identity.e164.slice(1)]);
  const rows = (await q.select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}

/** Serialises export requests for one subject until the transaction ends. */
export async function lockSubjectExports(tx: Knex.Transaction, tenantId: string, subjectId: string): Promise<void> {
  await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 9))', [`privacy-export:${tenantId}:${subjectId}`]);
}

/** The subject's newest export in this format that is pending, running or ready. */
export function latestLiveExport(scope: TenantScope, subjectId: string, format: string): Promise<ExportRow | undefined> {
  return scope.table('privacy_exports').where({ subject_id: subjectId, format }).whereIn('status', ['pending', 'running', 'ready']).orderBy('created_at', 'desc').first();
}

/** A new pending export, its link valid `ttlMs` from now (the database's clock, as every row time). */
export async function insertExport(scope: TenantScope, subjectId: string, format: string, ttlMs: number): Promise<ExportRow> {
  const [row] = (await scope.insert('privacy_exports', {
    subject_id: subjectId,
    format,
    expires_at: scope.db.raw('now() + make_interval(secs => ?)', [ttlMs / 1000]),
  })) as ExportRow[];
  return row;
}

/** Exports of any tenant whose link has expired and whose archive is still stored (the retention sweep's backstop), oldest first. */
export function expiredArchives(db: Queryable, now: Date, limit: number): Promise<{ tenant_id: string; id: string; object_key: string }[]> {
  return db('privacy_exports').whereNotNull('object_key').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).select('tenant_id', 'id', 'object_key');
}

export function exportById(scope: TenantScope, id: string): Promise<ExportRow | undefined> {
  return scope.table('privacy_exports').where({ id }).first();
}

export function erasureById(scope: TenantScope, id: string): Promise<ErasureRow | undefined> {
  return scope.table('privacy_erasures').where({ id }).first();
}

/** The newest erasure of the subject (found by its hash: erasure removes the raw id). */
export function latestErasureOf(scope: TenantScope, subjectHash: string): Promise<ErasureRow | undefined> {
  return scope.table('privacy_erasures').where({ subject_hash: subjectHash }).orderBy('created_at', 'desc').first();
}

export async function insertErasure(scope: TenantScope, erasure: { subjectHash: string | null; reason: string; preserveAudit: boolean }): Promise<ErasureRow> {
  const [row] = (await scope.insert('privacy_erasures', { subject_hash: erasure.subjectHash, reason: erasure.reason, preserve_audit: erasure.preserveAudit })) as ErasureRow[];
  return row;
}
