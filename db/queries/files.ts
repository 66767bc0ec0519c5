/** Uploaded files (issue 8): metadata rows here, bytes in the object store at `object_key`. */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { PlanName } from '../../domain/tenancy/plans';
import type { Queryable } from '../knex';
import { TenantScope } from '../tenant-scope';
import { listQuery, whereUuidFilters } from './list-query';

export interface FileRow {
  id: string;
  name: string;
  size_bytes: number;
  content_type: string;
  sha256: string;
  object_key: string;
  uploaded_by: string | null;
  contact_id: string | null;
  created_at: Date;
}

export const FILE_COLUMNS = ['id', 'name', 'size_bytes', 'content_type', 'sha256', 'object_key', 'uploaded_by', 'contact_id', 'created_at'] as const;

/** `size_bytes` is a bigint: pg returns it as a string. Files are far below 2^53 bytes. */
const withNumbers = (row: FileRow | undefined): FileRow | undefined => row && { ...row, size_bytes: Number(row.size_bytes) };

export async function fileById(scope: TenantScope, id: string): Promise<FileRow | undefined> {
  return withNumbers(
    await scope
      .table('files')
      .where('id', id)
      .first([...FILE_COLUMNS]),
  );
}

export const toFileRow = (row: FileRow): FileRow => withNumbers(row)!;

/** Where a new file of the tenant goes: a random 128-bit token, never the file's name. */
export function newFileObjectKey(tenantId: string): string {
  return `${fileKeyPrefix(tenantId)}${randomBytes(16).toString('hex')}`;
}

export const fileKeyPrefix = (tenantId: string): string => `tenants/${tenantId}/files/`;

export interface FileFilter {
  /** The exact sniffed type, compared lower-cased. */
  content_type?: string;
  contact_id?: string;
}

/** The tenant's files, oldest first. */
export function fileListQuery(scope: TenantScope, filter: FileFilter): Knex.QueryBuilder {
  const q = listQuery(scope, 'files', FILE_COLUMNS, [{ column: 'created_at' }, { column: 'id' }]);
  if (filter.content_type) q.where('content_type', filter.content_type.toLowerCase());
  whereUuidFilters(q, filter, { contact_id: 'contact_id' });
  return q;
}

/** A file's row before it is stored (its bytes already are, at object_key). */
export type NewFile = Omit<FileRow, 'id' | 'created_at'>;

export async function insertFile(scope: TenantScope, file: NewFile): Promise<FileRow> {
  const [row] = await scope.insert('files', { ...file }, [...FILE_COLUMNS]);
  return toFileRow(row);
}

export async function contactExists(scope: TenantScope, contactId: string): Promise<boolean> {
  return !!(await scope.table('contacts').where('id', contactId).first('id'));
}

/** The plan of the tenant (which sets its upload limit). */
export async function tenantPlan(db: Queryable, tenantId: string): Promise<PlanName> {
  const tenant: { plan: PlanName } = await db('tenants').where({ id: tenantId }).first('plan');
  return tenant.plan;
}
