/**
 * Files, without HTTP: the upload's record once its bytes are stored, the list and the delete's
 * side effects. The bytes stream through the route (api/routes/files.ts), which is the HTTP face.
 */
import { removeCollectionMemberships } from '../db/queries/collections';
import { contactExists, FileFilter, fileListQuery, FileRow, insertFile, NewFile, tenantPlan, toFileRow } from '../db/queries/files';
import type { Queryable } from '../db/knex';
import { paginate, type Page, type PageRequest } from '../db/pagination';
import type { TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { validationError } from '../domain/errors';
import { MAX_UPLOAD_BYTES } from '../domain/tenancy/plans';
import type { ObjectStore } from '../infra/object-store';

export type { FileFilter };

/** A file whose bytes are already in the object store at `object_key`. */
export type StoredUpload = NewFile;

/** The largest upload the tenant's plan allows, in bytes. */
export async function uploadLimitBytes(db: Queryable, tenantId: string): Promise<number> {
  return MAX_UPLOAD_BYTES[await tenantPlan(db, tenantId)];
}

/** Records a stored upload (422 when contact_id names no contact of the tenant); emits `file.uploaded` (ids only). */
export async function recordUpload(unit: Unit, upload: StoredUpload): Promise<FileRow> {
  const contactId = upload.contact_id;
  if (contactId && !(await contactExists(unit.scope, contactId))) {
    throw validationError('contact_id does not name a contact of this tenant', [{ field: 'body.contact_id', message: 'unknown contact', type: 'any.unknown_reference' }]);
  }
  const row = await insertFile(unit.scope, upload);
  unit.audit({
    action: 'file.uploaded',
    resourceType: 'file',
    resourceId: row.id,
    details: { size_bytes: upload.size_bytes, content_type: upload.content_type },
    ...(contactId ? { subjectId: contactId } : {}),
  });
  unit.emit('file.uploaded', { file_id: row.id, contact_id: contactId });
  return row;
}

export function listFiles(scope: TenantScope, filter: FileFilter, page: PageRequest): Promise<Page<FileRow>> {
  return paginate(fileListQuery(scope, filter), page, toFileRow);
}

/** Before a file's row is deleted: it leaves every collection. Answers what was removed. */
export async function removeFileMemberships(unit: Unit, file: FileRow): Promise<{ collection_memberships: number }> {
  return { collection_memberships: await removeCollectionMemberships(unit.scope, 'file', file.id) };
}

/** The file's bytes; when the store refuses, the caller's transaction fails and the row stays. */
export async function removeFileObject(objectStore: ObjectStore, file: Pick<FileRow, 'object_key'>): Promise<void> {
  await objectStore.client.removeObject(objectStore.bucket, file.object_key);
}
