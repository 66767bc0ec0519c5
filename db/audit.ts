import { randomBytes } from 'node:crypto';
import { Knex } from 'knex';
import { chainBodyAround, ChainVerification, GENESIS_HASH, sha256Hex, verifyChain } from '../domain/audit/chain';
import { Queryable } from './knex';
import { isoTime } from '../domain/time';

/** Who an audit row names: a signed-in user, a service token's holder, the system, or an operator running the CLI (cli/). */
export type Actor = { type: 'user'; id: string } | { type: 'service'; id: string } | { type: 'system'; id: string | null } | { type: 'operator'; id: string };

export interface AuditEntry {
  tenantId: string;
  actor: Actor;
  action: string;
  resourceType: string;
  resourceId: string | null;
  requestId: string | null;
  /** Ids and field names only: never values that could be personal data. */
  details?: Record<string, unknown>;
  /** The data subject the action concerns, if any (privacy export and erasure find rows by it). */
  subjectId?: string;
  occurredAt?: Date;
}

/**
 * Appends one row to the tenant's chain inside the caller's transaction, so the audit row commits
 * or rolls back with the change it records. One round trip: audit_append (migration
 * 20261126060000) takes a transaction-scoped advisory lock per tenant, so seq and prev_hash never
 * fork, reads the last row, hashes and inserts. Call it last in the transaction: the lock is held
 * until commit.
 */
export async function appendAudit(tx: Knex.Transaction, entry: AuditEntry): Promise<{ seq: number; hash: string }> {
  const subject = entry.subjectId ? await subjectColumns(tx, entry.tenantId, entry.subjectId) : null;
  const fields = {
    tenant_id: entry.tenantId,
    occurred_at: (entry.occurredAt ?? new Date()).toISOString(),
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    action: entry.action,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    request_id: entry.requestId,
    subject_digest: subject?.subject_digest ?? null,
    details: entry.details ?? {},
  };
  const body = chainBodyAround(fields);
  const { rows } = await tx.raw<{ rows: Array<{ appended_seq: string; appended_hash: string }> }>(
    'select appended_seq, appended_hash from audit_append(?, ?, ?, ?, ?::uuid, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?)',
    [
      `audit:${entry.tenantId}`,
      GENESIS_HASH,
      body.head,
      body.tail,
      fields.tenant_id,
      fields.occurred_at,
      fields.actor_type,
      fields.actor_id,
      fields.action,
      fields.resource_type,
      fields.resource_id,
      fields.request_id,
      JSON.stringify(fields.details),
      subject?.subject_ref ?? null,
      subject?.subject_hash ?? null,
      subject?.subject_nonce ?? null,
      fields.subject_digest,
    ],
  );
  return { seq: Number(rows[0].appended_seq), hash: rows[0].appended_hash };
}

/** sha256(tenant salt || subject id): the irreversible reference that survives erasure. */
export async function subjectHash(db: Queryable, tenantId: string, subjectId: string): Promise<string> {
  const tenant = await db('tenants').where({ id: tenantId }).first('audit_salt');
  if (!tenant) throw new Error(`tenant ${tenantId} not found`);
  return sha256Hex(tenant.audit_salt as Buffer, subjectId);
}

async function subjectColumns(db: Queryable, tenantId: string, subjectId: string) {
  const subject_hash = await subjectHash(db, tenantId, subjectId);
  const subject_nonce = randomBytes(16).toString('hex');
  return {
    subject_ref: subjectId,
    subject_hash,
    subject_nonce,
    subject_digest: sha256Hex(subject_nonce, subject_hash),
  };
}

const VERIFY_BATCH = 1000;

/** Walks the tenant's chain in seq order, in batches, without loading it whole. */
export async function verifyTenantChain(db: Queryable, tenantId: string): Promise<ChainVerification> {
  let anchor: { seq: number; hash: string } | undefined;
  let checked = 0;
  for (;;) {
    const rows = await db('audit_log')
      .where({ tenant_id: tenantId })
      .andWhere('seq', '>', anchor?.seq ?? 0)
      .orderBy('seq', 'asc')
      .limit(VERIFY_BATCH)
      .select(
        'tenant_id',
        'seq',
        'occurred_at',
        'actor_type',
        'actor_id',
        'action',
        'resource_type',
        'resource_id',
        'request_id',
        'subject_digest',
        'details',
        'prev_hash',
        'hash',
      );
    if (rows.length === 0) {
      return { valid: true, checked, last_seq: anchor?.seq ?? null, last_hash: anchor?.hash ?? null };
    }
    const result = verifyChain(
      rows.map((r) => ({ ...r, seq: Number(r.seq), occurred_at: isoTime(r.occurred_at) })),
      anchor,
    );
    if (!result.valid) return { ...result, checked: checked + result.checked };
    checked += result.checked;
    anchor = { seq: result.last_seq as number, hash: result.last_hash as string };
  }
}
