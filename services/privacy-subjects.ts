/**
 * Subject requests by the identity they name (a contact's id, an e-mail address or a phone): the
 * identity is resolved to contact ids here, before any workflow starts, so workflow inputs,
 * histories and audit details carry ids only. An identity naming several contacts acts on each.
 */
import type { Db } from '../db/knex';
import { defaultCountryOf } from '../db/privacy/settings';
import { contactIdsByIdentity } from '../db/queries/privacy';
import { tenantScope } from '../db/tenant-scope';
import type { UnitContext } from '../db/unit-of-work';
import { notFound, validationError } from '../domain/errors';
import { isNationalPhoneText, parseSubjectIdentity, SubjectIdentity } from '../domain/privacy/subject-identity';
import type { TemporalGateway } from '../infra/temporal';
import { ErasureRow, ExportProgress, ExportRow, exportStatus, requestErasure, requestExport } from './privacy';

type Deps = { db: Db; temporal: TemporalGateway };

const unreadable = (detail: string) => validationError(detail, [{ field: 'body.subject_id', message: 'not a UUID, e-mail address or phone number', type: 'string.subject_id' }]);

/** The identity, a national phone number read with the tenant's default country; 422 when it names no identity. */
async function identityOf(db: Db, tenantId: string, subjectId: string): Promise<SubjectIdentity> {
  const identity = parseSubjectIdentity(subjectId);
  if (identity) return identity;
  if (!isNationalPhoneText(subjectId)) throw unreadable('subject_id must be a contact id, an e-mail address or a phone number');
  const country = await defaultCountryOf(db, tenantId);
  if (!country) {
    throw unreadable(
      'subject_id is a phone number without a country code: write it with one (+31 6 12345678), or set the default country in the privacy settings (subjects.default_country)',
    );
  }
  const national = parseSubjectIdentity(subjectId, country);
  if (!national) throw unreadable(`subject_id is not a valid phone number of ${country}, the default country of the privacy settings`);
  return national;
}

/**
 * The contact ids `subjectId` names in the tenant, oldest first; 404 when none. A UUID is passed
 * as it is: the per-contact request answers for it (an erased contact still has its last erasure).
 */
export async function resolveSubjects(db: Db, tenantId: string, subjectId: string): Promise<string[]> {
  const identity = await identityOf(db, tenantId, subjectId);
  if (identity.kind === 'id') return [identity.id];
  const ids = await contactIdsByIdentity(tenantScope(db, tenantId), identity);
  if (ids.length === 0) throw notFound('subject');
  return ids;
}

export interface SubjectExports {
  subjectIds: string[];
  exports: { row: ExportRow; progress: ExportProgress }[];
  /** Every export is ready (its link serves the ZIP now). */
  ready: boolean;
}

/**
 * One export per contact the identity names, answered at once: each has its link from the start
 * (it serves the ZIP once built, and says when to retry until then).
 */
export async function exportSubjects(deps: Deps, context: UnitContext, order: { subject_id: string; format: string }): Promise<SubjectExports> {
  const subjectIds = await resolveSubjects(deps.db, context.tenantId, order.subject_id);
  const exports: SubjectExports['exports'] = [];
  for (const subjectId of subjectIds) exports.push(await requestExport(deps, context, { subject_id: subjectId, format: order.format }, new Date()));
  const now = new Date();
  return { subjectIds, exports, ready: exports.every(({ row }) => exportStatus(row, now) === 'ready') };
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
