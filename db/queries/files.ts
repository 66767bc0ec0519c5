/** Uploaded files (issue 8): metadata rows here, bytes in the object store at `object_key`. */
import { randomBytes } from 'node:crypto';
import type { ObjectStore } from '../../infra/object-store';
import { TenantScope } from '../tenant-scope';

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

/** The bytes of a stored file, streamed from the object store. */
export async function openFileStream(objectStore: ObjectStore, row: Pick<FileRow, 'object_key'>): Promise<NodeJS.ReadableStream> {
  return objectStore.client.getObject(objectStore.bucket, row.object_key);
}

/** Where a new file of the tenant goes: a random 128-bit token, never the file's name. */
export function newFileObjectKey(tenantId: string): string {
  return `${fileKeyPrefix(tenantId)}${randomBytes(16).toString('hex')}`;
}

export const fileKeyPrefix = (tenantId: string): string => `tenants/${tenantId}/files/`;
