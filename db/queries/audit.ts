/** The tenant's audit trail (db/audit.ts writes and verifies it), as the audit API lists it. */
import type { Knex } from 'knex';
import type { Actor } from '../audit';
import { TenantScope } from '../tenant-scope';
import { listQuery } from './list-query';

export interface AuditRow {
  id: string;
  /** bigint: node-postgres answers it as a string. */
  seq: string;
  occurred_at: Date;
  actor_type: Actor['type'];
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  request_id: string | null;
  subject_hash: string | null;
  details: Record<string, unknown>;
  hash: string;
}
const AUDIT_COLUMNS = ['id', 'seq', 'occurred_at', 'actor_type', 'actor_id', 'action', 'resource_type', 'resource_id', 'request_id', 'subject_hash', 'details', 'hash'] as const;

export interface AuditFilter {
  action?: string;
  resource_type?: string;
  resource_id?: string;
  actor_id?: string;
  from?: Date;
  to?: Date;
}

/** The tenant's entries matching the filter, newest first. Text filters compare exactly (resource and actor ids are text columns). */
export function auditListQuery(scope: TenantScope, filter: AuditFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'audit_log', AUDIT_COLUMNS, [{ column: 'seq', order: 'desc' }]);
  for (const field of ['action', 'resource_type', 'resource_id', 'actor_id'] as const) {
    if (filter[field]) q.where(field, filter[field]);
  }
  if (filter.from) q.where('occurred_at', '>=', filter.from);
  if (filter.to) q.where('occurred_at', '<=', filter.to);
  return q;
}
