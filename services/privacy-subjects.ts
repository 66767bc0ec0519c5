/**
 * Subject requests by the identity they name (a contact's id, an e-mail address or a phone): the
 * identity is resolved to contact ids here, before any workflow starts, so workflow inputs,
 * histories and audit details carry ids only. An identity naming several contacts acts on each.
 */
import type { Db } from '../db/knex';
import { contactIdsByIdentity, exportById } from '../db/queries/privacy';
import { tenantScope } from '../db/tenant-scope';
import type { UnitContext } from '../db/unit-of-work';
import { notFound, validationError } from '../domain/errors';
import { parseSubjectIdentity } from '../domain/privacy/subject-identity';
import type { TemporalGateway } from '../infra/temporal';
import { awaitExportWorkflow } from '../orchestration/privacy';
import { waitOnTemporal } from '../orchestration/temporal-call';
import { ErasureRow, exportProgressOf, ExportProgress, ExportRow, exportStatus, requestErasure, requestExport } from './privacy';

type Deps = { db: Db; temporal: TemporalGateway };

/**
 * The contact ids `subjectId` names in the tenant, oldest first; 404 when none. A UUID is passed
 * as it is: the per-contact request answers for it (an erased contact still has its last erasure).
 */
export async function resolveSubjects(db: Db, tenantId: string, subjectId: string): Promise<string[]> {
  const identity = parseSubjectIdentity(subjectId);
  if (!identity) {
    throw validationError('subject_id must be a contact id, an e-mail address or an international phone number', [
      { field: 'body.subject_id', message: 'not a UUID, e-mail address or phone number', type: 'string.subject_id' },
    ]);
  }
  if (identity.kind === 'id') return [identity.id];
  const ids = await contactIdsByIdentity(tenantScope(db, tenantId), identity);
  if (ids.length === 0) throw notFound('subject');
  return ids;
}

export interface SubjectExports {
  subjectIds: string[];
  exports: { row: ExportRow; progress: ExportProgress }[];
  /** Every export is ready (its URL can be handed out now). */
  ready: boolean;
}

/**
 * One export per contact the identity names, then a wait of at most `waitMs` for those not ready
 * yet (their workflows' results, with a deadline; no transaction is open meanwhile).
 */
export async function exportSubjects(deps: Deps, context: UnitContext, order: { subject_id: string; format: string }, waitMs: number): Promise<SubjectExports> {
  const subjectIds = await resolveSubjects(deps.db, context.tenantId, order.subject_id);
  const requested: ExportRow[] = [];
  for (const subjectId of subjectIds) requested.push((await requestExport(deps, context, { subject_id: subjectId, format: order.format }, new Date())).row);
  const scope = tenantScope(deps.db, context.tenantId);
  const rows = await Promise.all(
    requested.map(async (row) => {
      if (row.status !== 'pending' && row.status !== 'running') return row;
      await waitOnTemporal(deps.temporal, waitMs, (client) => awaitExportWorkflow(client, context.tenantId, row.id));
      return (await exportById(scope, row.id)) ?? row;
    }),
  );
  const now = new Date();
  const exports = await Promise.all(rows.map(async (row) => ({ row, progress: await exportProgressOf(deps.temporal, row, now) })));
  return { subjectIds, exports, ready: rows.every((row) => exportStatus(row, now) === 'ready') };
}

/** One erasure per contact the identity names. */
export async function eraseSubjects(
  deps: Deps,
  context: UnitContext,
  order: { subject_id: string; reason: string; preserve_audit: boolean },
): Promise<{ subjectIds: string[]; erasures: ErasureRow[] }> {
  const subjectIds = await resolveSubjects(deps.db, context.tenantId, order.subject_id);
  const erasures: ErasureRow[] = [];
  for (const subjectId of subjectIds) erasures.push(await requestErasure(deps, context, { ...order, subject_id: subjectId }));
  return { subjectIds, erasures };
}
