/**
 * Subject export activities: the ZIP is streamed from PostgreSQL batches through archiver
 * straight into MinIO (nothing is held whole in memory), the export is marked ready, and its
 * archive is deleted when its link expires. Activity inputs and results carry ids, counts and the
 * expiry only, so workflow history never holds personal data or a link.
 */
import { Context } from '@temporalio/activity';
import { PassThrough } from 'node:stream';
import { subjectHash } from '../../db/audit';
import { Db } from '../../db/knex';
import { subjectRowsPage, subjectRowsStream, SubjectKey } from '../../db/privacy/categories';
import { expiredArchives } from '../../db/queries/privacy';
import { DataCategory, exportedCategories } from '../../domain/privacy/registry';
import { ObjectStore } from '../../infra/object-store';
import { ExportZip } from './export-zip';

const PAGE = 500;
/** Expired archives deleted per call of the retention sweep's backstop. */
export const EXPIRED_ARCHIVES_BATCH = 100;

export interface ExportRef {
  tenantId: string;
  exportId: string;
}

export interface ManifestPart {
  file: string;
  category: string;
  count: number;
  bytes: number;
  sha256: string;
}

function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Outside an activity (direct calls in tests): nothing to report to.
  }
}

/** One category as a JSON array, streamed from one query (the cursor is closed when the loop ends or throws). */
async function* categoryJson(db: Db, tenantId: string, category: DataCategory, subject: SubjectKey, counter: { count: number }): AsyncGenerator<string> {
  yield '[';
  for await (const row of subjectRowsStream(db, tenantId, category, subject, PAGE)) {
    yield (counter.count === 0 ? '\n' : ',\n') + JSON.stringify(row);
    counter.count++;
    if (counter.count % PAGE === 0) heartbeat({ category: category.name, count: counter.count });
  }
  yield counter.count === 0 ? ']' : '\n]';
}

/**
 * The MinIO objects of the subject's rows (e.g. uploaded files) in exported categories, one at a
 * time, each streamed from the object store into the archive as `files/<category>/<row id>-<name>`.
 */
async function* subjectFiles(db: Db, objectStore: ObjectStore, categories: readonly DataCategory[], tenantId: string, subject: SubjectKey) {
  for (const category of categories) {
    const objectColumn = category.objectKeyColumn;
    if (!objectColumn) continue;
    let after: string | number | null = null;
    for (;;) {
      const rows = await subjectRowsPage(db, tenantId, category, subject, after, PAGE, [category.keyColumn, objectColumn]);
      for (const row of rows) {
        const key = row[objectColumn] as string | null;
        if (!key) continue;
        const name = `files/${category.name}/${String(row[category.keyColumn])}-${key.split('/').pop()}`;
        yield { name, category: category.name, content: await objectStore.client.getObject(objectStore.bucket, key) };
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1][category.keyColumn] as string | number;
    }
  }
}

export interface PrivacyExportDeps {
  db: Db;
  objectStore: ObjectStore;
  /** The exported categories; the registry's unless a test passes its own. */
  categories?: readonly DataCategory[];
}

export function createPrivacyExportActivities(deps: PrivacyExportDeps) {
  const { db, objectStore } = deps;
  const categories = deps.categories ?? exportedCategories();
  const exportRow = async (ref: ExportRef) => {
    const row = await db('privacy_exports').where({ tenant_id: ref.tenantId, id: ref.exportId }).first();
    if (!row) throw new Error(`privacy export ${ref.exportId} not found`);
    return row;
  };

  return {
    /** Streams the subject's ZIP into MinIO; a retry rewrites the same object key. */
    async buildSubjectExport(ref: ExportRef): Promise<{ parts: number; rows: number; bytes: number }> {
      const row = await exportRow(ref);
      const subject: SubjectKey = { id: row.subject_id, hash: await subjectHash(db, ref.tenantId, row.subject_id) };
      const objectKey = `privacy-exports/${ref.tenantId}/${ref.exportId}.zip`;
      await db('privacy_exports').where({ id: ref.exportId }).update({ status: 'running' });

      const body = new PassThrough();
      // Failures surface through `upload` or the writer's rejected write, not as an unhandled event.
      body.on('error', () => undefined);
      const upload = objectStore.client.putObject(objectStore.bucket, objectKey, body, undefined, { 'Content-Type': 'application/zip' }).catch((err: Error) => {
        body.destroy(err);
        throw err;
      });
      const zip = new ExportZip(body, new Date(row.created_at));
      const parts: ManifestPart[] = [];
      try {
        for (const category of categories) {
          const counter = { count: 0 };
          const file = `${category.name}.json`;
          const entry = await zip.addEntry(file, categoryJson(db, ref.tenantId, category, subject, counter));
          parts.push({ file, category: category.name, count: counter.count, bytes: entry.size, sha256: entry.sha256 });
          heartbeat({ done: parts.length });
        }
        for await (const file of subjectFiles(db, objectStore, categories, ref.tenantId, subject)) {
          const entry = await zip.addEntry(file.name, file.content);
          parts.push({ file: file.name, category: file.category, count: 1, bytes: entry.size, sha256: entry.sha256 });
          heartbeat({ done: parts.length });
        }
        const manifest = {
          export_id: ref.exportId,
          subject_id: row.subject_id,
          format: row.format,
          generated_at: new Date().toISOString(),
          parts,
        };
        await zip.addEntry('manifest.json', [JSON.stringify(manifest, null, 2)]);
        await zip.finish();
      } catch (err) {
        // Aborts the upload: a stream that errors is never stored as a complete object.
        body.destroy(err as Error);
        upload.catch(() => undefined);
        throw err;
      }
      await upload;
      // object_key is set once the object exists, so it always names a complete ZIP.
      const updated = await db('privacy_exports')
        .where({ id: ref.exportId })
        .update({ object_key: objectKey, size_bytes: zip.bytesWritten, manifest: JSON.stringify({ parts }) });
      if (updated === 0) {
        // Erased while it was being built: the ZIP must not outlive its row.
        await objectStore.client.removeObject(objectStore.bucket, objectKey);
        throw new Error(`privacy export ${ref.exportId} disappeared while being built`);
      }
      return { parts: parts.length, rows: parts.reduce((n, p) => n + p.count, 0), bytes: zip.bytesWritten };
    },

    /** Marks the export ready (its link then serves the ZIP); idempotent. Answers when the link expires, for the deletion. */
    async publishSubjectExport(ref: ExportRef): Promise<{ expiresAt: string }> {
      const row = await exportRow(ref);
      if (row.status !== 'ready') await db('privacy_exports').where({ tenant_id: ref.tenantId, id: ref.exportId }).update({ status: 'ready', ready_at: db.fn.now() });
      return { expiresAt: new Date(row.expires_at).toISOString() };
    },

    /** Marks the export failed and deletes whatever archive it had (its link answers the failure). */
    async failSubjectExport(ref: ExportRef): Promise<void> {
      await db('privacy_exports').where({ tenant_id: ref.tenantId, id: ref.exportId }).whereNot({ status: 'ready' }).update({ status: 'failed', error: 'export_failed' });
      await deleteArchive(db, objectStore, ref);
    },

    /** Deletes the export's archive once its link has expired; idempotent (an erased export has nothing left). */
    async deleteSubjectExportArchive(ref: ExportRef): Promise<void> {
      await deleteArchive(db, objectStore, ref);
    },

    /**
     * The retention sweep's backstop: deletes up to EXPIRED_ARCHIVES_BATCH archives, of any tenant,
     * whose link has expired (exports whose workflow ended before it deleted them); `more` when a
     * full batch was deleted (call again).
     */
    async deleteExpiredExportArchives(input: { now: string }): Promise<{ deleted: number; more: boolean }> {
      const rows = await expiredArchives(db, new Date(input.now), EXPIRED_ARCHIVES_BATCH);
      for (const row of rows) await deleteArchive(db, objectStore, { tenantId: row.tenant_id, exportId: row.id });
      return { deleted: rows.length, more: rows.length === EXPIRED_ARCHIVES_BATCH };
    },
  };
}

/** Removes the archive from the object store, then forgets its key (so a retry finds nothing left to do). */
async function deleteArchive(db: Db, objectStore: ObjectStore, ref: ExportRef): Promise<void> {
  const row = await db('privacy_exports').where({ tenant_id: ref.tenantId, id: ref.exportId }).first('object_key');
  if (!row?.object_key) return;
  await objectStore.client.removeObject(objectStore.bucket, row.object_key);
  await db('privacy_exports').where({ tenant_id: ref.tenantId, id: ref.exportId }).update({ object_key: null });
}

export type PrivacyExportActivities = ReturnType<typeof createPrivacyExportActivities>;
