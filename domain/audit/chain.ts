import { createHash } from 'node:crypto';

/**
 * Hash chain of the audit trail, per tenant: hash_n = sha256(hash_{n-1} || canonical(row_n)).
 * The chain covers what an auditor relies on and deliberately excludes the erasable subject
 * columns (subject_ref, subject_hash, subject_nonce): it covers only subject_digest, so erasing
 * a data subject never breaks verification.
 */
export const GENESIS_HASH = '0'.repeat(64);

export interface ChainedFields {
  tenant_id: string;
  seq: number;
  occurred_at: string; // ISO 8601 with milliseconds
  actor_type: string;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  subject_digest: string | null;
  details: unknown;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The values the chain covers, in their fixed order (seq second). */
function chainedValues(row: ChainedFields): unknown[] {
  return [
    row.tenant_id,
    row.seq,
    row.occurred_at,
    row.actor_type,
    row.actor_id,
    row.action,
    row.resource_type,
    row.resource_id,
    row.request_id,
    row.subject_digest,
    row.details ?? {},
  ];
}

export function chainHash(prevHash: string, row: ChainedFields): string {
  return createHash('sha256')
    .update(prevHash)
    .update('\n')
    .update(canonicalJson(chainedValues(row)))
    .digest('hex');
}

/**
 * The canonical body split around seq, for the database to hash with the seq it assigns
 * (audit_append): head + String(seq) + tail is the body chainHash hashes for that seq.
 */
export function chainBodyAround(row: Omit<ChainedFields, 'seq'>): { head: string; tail: string } {
  const [tenant, , ...rest] = chainedValues({ ...row, seq: 0 });
  return { head: `[${canonicalJson(tenant)},`, tail: `,${rest.map(canonicalJson).join(',')}]` };
}

export function sha256Hex(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

export type ChainVerification =
  { valid: true; checked: number; last_seq: number | null; last_hash: string | null } | { valid: false; checked: number; broken_at_seq: number; reason: string };

/** Verifies rows given in seq order; the first row's prev_hash anchors the chain (retention may have removed older rows). */
export function verifyChain(rows: Array<ChainedFields & { prev_hash: string; hash: string }>, anchor?: { seq: number; hash: string }): ChainVerification {
  let prev = anchor ?? null;
  let checked = 0;
  for (const row of rows) {
    if (prev && row.seq !== prev.seq + 1) {
      return { valid: false, checked, broken_at_seq: row.seq, reason: `sequence gap after ${prev.seq}` };
    }
    if (prev && row.prev_hash !== prev.hash) {
      return { valid: false, checked, broken_at_seq: row.seq, reason: 'prev_hash does not match the previous row' };
    }
    if (!prev && row.seq === 1 && row.prev_hash !== GENESIS_HASH) {
      return { valid: false, checked, broken_at_seq: row.seq, reason: 'first row does not start from the genesis hash' };
    }
    if (chainHash(row.prev_hash, row) !== row.hash) {
      return { valid: false, checked, broken_at_seq: row.seq, reason: 'row content does not match its hash' };
    }
    prev = { seq: row.seq, hash: row.hash };
    checked += 1;
  }
  return { valid: true, checked, last_seq: prev?.seq ?? null, last_hash: prev?.hash ?? null };
}
