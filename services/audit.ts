/**
 * The tenant's audit trail, without HTTP: both reads take the tenant's scope and answer rows or
 * the chain's verdict. api/routes/audit.ts is the HTTP face.
 */
import { verifyTenantChain } from '../db/audit';
import type { ChainVerification } from '../domain/audit/chain';
import { AuditFilter, auditListQuery, AuditRow } from '../db/queries/audit';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';

export type { AuditFilter, AuditRow };

export function listAuditEntries(scope: TenantScope, filter: AuditFilter, page: PageRequest): Promise<Page<AuditRow>> {
  return paginate(auditListQuery(scope, filter), page);
}

/** Walks the tenant's hash chain end to end (db/audit.ts). */
export function verifyAuditChain(scope: TenantScope): Promise<ChainVerification> {
  return verifyTenantChain(scope.db, scope.tenantId);
}
