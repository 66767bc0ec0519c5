import Joi from '../../domain/joi';
import { fileById, FileRow, newFileObjectKey } from '../../db/queries/files';
import { isUuid, TenantScope } from '../../db/tenant-scope';
import { tenantScopeOf, userOf } from '../context';
import { receiveUpload } from '../multipart-upload';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, pageOf } from '../pagination';
import { mapPage, PageRequest } from '../../db/pagination';
import { FileFilter, listFiles, recordUpload, removeFileMemberships, removeFileObject, uploadLimitBytes } from '../../services/files';
import { ApiRouter } from '../route';
import { idRef } from '../validation';
import { findOr404 } from '../../db/find-or-404';
import { resourceRoutes } from '../resource-routes';

/** Presigned download URLs are short-lived: a leaked link stops working within minutes. */
export const DOWNLOAD_URL_TTL_SECONDS = 300;

export const fileSchema = Joi.object({
  id: Joi.string().uuid(),
  name: Joi.string(),
  size_bytes: Joi.number().integer(),
  content_type: Joi.string().description('Sniffed from the bytes, not taken from the client'),
  sha256: Joi.string().description('Hex SHA-256 of the bytes'),
  uploaded_by: Joi.string().uuid().allow(null),
  contact_id: Joi.string().uuid().allow(null).description('The data subject the file concerns'),
  created_at: Joi.string().isoDate(),
});

export const toFile = (row: FileRow) => ({
  id: row.id,
  name: row.name,
  size_bytes: Number(row.size_bytes),
  content_type: row.content_type,
  sha256: row.sha256,
  uploaded_by: row.uploaded_by,
  contact_id: row.contact_id,
  created_at: row.created_at.toISOString(),
});

const fileParams = Joi.object({ file_id: idRef.required() });

export function requireFile(scope: TenantScope, id: string): Promise<FileRow> {
  return findOr404('file', id, () => fileById(scope, id));
}

/** RFC 6266 attachment header for the download, so a browser saves the file instead of rendering it. */
const attachment = (name: string) => `attachment; filename*=UTF-8''${encodeURIComponent(name)}`;

export function fileRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/files');

  api.route({
    method: 'post',
    path: '/',
    summary: 'Upload a file (multipart/form-data, streamed to object storage)',
    description:
      'Field `file` (required) and optional `contact_id` (the data subject the file concerns). The content type is sniffed from ' +
      'the bytes; a declared part Content-Type that contradicts them is refused with 415 CONTENT_TYPE_MISMATCH. Size limit per plan: ' +
      'free 10 MiB, starter 50 MiB, professional 200 MiB, enterprise 1 GiB (413).',
    tags: ['files'],
    auth: 'user',
    permission: 'manage_files',
    multipart: {
      file: { type: 'file', description: 'The file', required: true },
      contact_id: { type: 'string', description: 'Id of the contact (data subject) the file concerns' },
    },
    responses: {
      201: { description: 'Stored file', schema: fileSchema },
      413: { description: "File over the plan's upload limit" },
      415: { description: 'Not multipart/form-data, or CONTENT_TYPE_MISMATCH: the declared type contradicts the bytes' },
      422: { description: 'Missing file, unknown form field or unknown contact' },
    },
    handler: async (ctx) => {
      const { tenantId, userId } = userOf(ctx);
      const { db, objectStore } = ctx.deps;
      const objectKey = newFileObjectKey(tenantId);
      const upload = await receiveUpload(ctx, {
        objectStore,
        objectKey,
        maxBytes: await uploadLimitBytes(db, tenantId),
        fileField: 'file',
        fields: { contact_id: isUuid },
      });
      try {
        const created = await runMutation(ctx, tenantId, actorOf(ctx), (unit) =>
          recordUpload(unit, {
            name: upload.fileName,
            size_bytes: upload.sizeBytes,
            content_type: upload.contentType,
            sha256: upload.sha256,
            object_key: objectKey,
            uploaded_by: userId,
            contact_id: upload.fields.contact_id ?? null,
          }),
        );
        ctx.status = 201;
        ctx.body = toFile(created);
      } catch (err) {
        await objectStore.client.removeObject(objectStore.bucket, objectKey).catch(() => undefined);
        throw err;
      }
    },
  });

  api.route<unknown, PageRequest & FileFilter>({
    method: 'get',
    path: '/',
    summary: 'List files',
    tags: ['files'],
    auth: 'user',
    permission: 'view_files',
    query: Joi.object({
      ...pageQuery,
      content_type: Joi.string().max(200).description('Exact sniffed content type, e.g. application/pdf'),
      contact_id: idRef,
    }),
    responses: {
      200: { description: 'A page of files', schema: pageOf(fileSchema) },
    },
    handler: async (ctx, { query }) => {
      ctx.body = mapPage(await listFiles(tenantScopeOf(ctx), query, query), toFile);
    },
  });

  const file = resourceRoutes(api, {
    path: '/:file_id',
    tags: ['files'],
    view: 'view_files',
    schema: fileSchema,
    find: requireFile,
    present: toFile,
    write: { permission: 'manage_files', audit: 'file', table: 'files' },
  });
  file.get({ summary: "Get a file's metadata", found: 'File' });

  api.route<{ file_id: string }>({
    method: 'get',
    path: '/:file_id/download',
    summary: 'A short-lived (5 minutes) presigned URL to download the file',
    tags: ['files'],
    auth: 'user',
    permission: 'view_files',
    params: fileParams,
    responses: {
      200: { description: 'Presigned URL', schema: Joi.object({ url: Joi.string().uri(), expires_at: Joi.string().isoDate() }) },
      404: { description: 'Not found' },
    },
    handler: async (ctx, { params }) => {
      const { objectStore } = ctx.deps;
      const file = await requireFile(tenantScopeOf(ctx), params.file_id);
      const signedAt = new Date();
      const url = await objectStore.publicClient.presignedGetObject(
        objectStore.bucket,
        file.object_key,
        DOWNLOAD_URL_TTL_SECONDS,
        { 'response-content-type': file.content_type, 'response-content-disposition': attachment(file.name) },
        signedAt,
      );
      ctx.body = { url, expires_at: new Date(signedAt.getTime() + DOWNLOAD_URL_TTL_SECONDS * 1000).toISOString() };
    },
  });

  file.remove(
    { summary: 'Delete a file: its object, its row and its collection memberships' },
    {
      before: (unit, row) => removeFileMemberships(unit, row),
      // Last, inside the transaction: if the store refuses, the row stays and the call fails.
      after: (_unit, row, ctx) => removeFileObject(ctx.deps.objectStore, row),
    },
  );

  return api;
}
