/**
 * The database side of the privacy registry (domain/privacy/registry.ts): which rows of a category
 * belong to a subject, batch erasure, and retention deletes. Every query is tenant-filtered.
 */
import { Knex } from 'knex';
import { DataCategory } from '../../domain/privacy/registry';
import { DeleteRange } from '../../domain/privacy/settings';
import { Queryable } from '../knex';

export interface SubjectKey {
  id: string;
  /** sha256(tenant salt || id): finds audit rows whose raw reference is already cleared. */
  hash: string;
}

/** `select ... from <table> where <row belongs to the subject>`, tenant-filtered. */
export function subjectRows(db: Queryable, tenantId: string, category: DataCategory, subject: SubjectKey): Knex.QueryBuilder {
  const t = category.table;
  const q = db(t).where(`${t}.tenant_id`, tenantId);
  const link = category.link;
  switch (link.kind) {
    case 'self':
      return q.where(`${t}.id`, subject.id);
    case 'column':
      return q.where(`${t}.${link.column}`, subject.id);
    case 'join':
      return q.whereIn(
        `${t}.${link.column}`,
        db(link.parent.table)
          .select('id')
          .where({ tenant_id: tenantId, [link.parent.subjectColumn]: subject.id }),
      );
    case 'audit':
      return q.where((w) => void w.where(`${t}.subject_ref`, subject.id).orWhere(`${t}.subject_hash`, subject.hash));
    case 'none':
      return q.whereRaw('false');
  }
}

/** The next export batch after `after` (keyset on the category's key column). */
export async function subjectRowsPage(
  db: Queryable,
  tenantId: string,
  category: DataCategory,
  subject: SubjectKey,
  after: string | number | null,
  limit: number,
  columns: string[] = category.exportColumns,
): Promise<Record<string, unknown>[]> {
  const key = `${category.table}.${category.keyColumn}`;
  const q = subjectRows(db, tenantId, category, subject)
    .select(columns.map((c) => `${category.table}.${c}`))
    .orderBy(key)
    .limit(limit);
  if (after !== null) q.where(key, '>', after);
  return q;
}

/**
 * All the subject's rows of a category, in key order, as one query read through a server-side
 * cursor (pg-query-stream): memory stays at one batch whatever the count, the rows come from one
 * snapshot, and the database sorts once. Paging by key instead made PostgreSQL gather and sort
 * every row of the subject again for each page of a join category (quadratic: 100 000 messages took
 * 26 s against 1 s for 10 000).
 */
export function subjectRowsStream(db: Queryable, tenantId: string, category: DataCategory, subject: SubjectKey, batchSize: number): AsyncIterable<Record<string, unknown>> {
  return subjectRows(db, tenantId, category, subject)
    .select(category.exportColumns.map((c) => `${category.table}.${c}`))
    .orderBy(`${category.table}.${category.keyColumn}`)
    .stream({ highWaterMark: batchSize });
}

export async function countSubjectRows(db: Queryable, tenantId: string, category: DataCategory, subject: SubjectKey): Promise<number> {
  const row = await subjectRows(db, tenantId, category, subject).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Erases up to `limit` of the subject's rows of one category in the caller's transaction; returns
 * how many rows changed (0: the category is done). Running it again after it is done changes nothing.
 */
export async function eraseSubjectBatch(
  tx: Knex.Transaction,
  tenantId: string,
  category: DataCategory,
  subject: SubjectKey,
  opts: { preserveAudit: boolean; limit: number },
): Promise<number> {
  const t = category.table;
  const batch = subjectRows(tx, tenantId, category, subject).select(`${t}.${category.keyColumn}`).limit(opts.limit);
  const target = () => tx(t).where(`${t}.tenant_id`, tenantId).whereIn(category.keyColumn, batch);
  switch (category.erasure.kind) {
    case 'delete':
      return target().delete();
    case 'anonymise':
      return target().update(Object.fromEntries(category.erasure.nullify.map((c) => [c, null])));
    case 'audit_subject': {
      // Only rows that still carry something to clear, so the batch loop ends.
      const audit = tx(t).where(`${t}.tenant_id`, tenantId);
      if (opts.preserveAudit) {
        return audit.whereIn('seq', tx(t).select('seq').where({ tenant_id: tenantId, subject_ref: subject.id }).limit(opts.limit)).update({ subject_ref: null });
      }
      return audit
        .whereIn('seq', subjectRows(tx, tenantId, category, subject).select('seq').limit(opts.limit))
        .update({ subject_ref: null, subject_hash: null, subject_nonce: null });
    }
    case 'none':
      return 0;
  }
}

/** Object keys held by the subject's rows of a category (deleted from MinIO before the rows). */
export async function subjectObjectKeys(db: Queryable, tenantId: string, category: DataCategory, subject: SubjectKey, limit: number): Promise<string[]> {
  if (!category.objectKeyColumn) return [];
  const col = `${category.table}.${category.objectKeyColumn}`;
  const rows = await subjectRows(db, tenantId, category, subject).whereNotNull(col).select({ key: col }).limit(limit);
  return rows.map((r: { key: string }) => r.key);
}

/**
 * Deletes up to `limit` rows of a category whose timestamp falls in one of `ranges`; returns the
 * count. Audit rows go through `audit_log_purge_expired`, the one path the audit trail's guard lets
 * through (it runs as its own role and refuses rows younger than 365 days whatever is asked).
 */
export async function deleteExpiredBatch(
  db: Knex,
  tenantId: string,
  category: DataCategory & { retention: NonNullable<DataCategory['retention']> },
  ranges: DeleteRange[],
  limit: number,
): Promise<number> {
  if (ranges.length === 0) return 0;
  if (category.link.kind === 'audit') return purgeExpiredAudit(db, tenantId, ranges, limit);
  const t = category.table;
  const ts = `${t}.${category.retention.timestampColumn}`;
  const batch = db(t)
    .select(category.keyColumn)
    .where(`${t}.tenant_id`, tenantId)
    .modify((q) => void (category.retention.onlyWhereSet ? q.whereNotNull(`${t}.${category.retention.onlyWhereSet}`) : q))
    .where((w) => {
      for (const r of ranges) w.orWhere((x) => void (r.from ? x.where(ts, '<', r.before).andWhere(ts, '>=', r.from) : x.where(ts, '<', r.before)));
    })
    .orderBy(category.keyColumn)
    .limit(limit);
  return Number(await db(t).where(`${t}.tenant_id`, tenantId).whereIn(category.keyColumn, batch).delete());
}

async function purgeExpiredAudit(db: Knex, tenantId: string, ranges: DeleteRange[], limit: number): Promise<number> {
  let deleted = 0;
  for (const range of ranges) {
    if (deleted >= limit) break;
    const { rows } = await db.raw('select audit_log_purge_expired(?, ?, ?, ?) as n', [tenantId, range.from ?? null, range.before, limit - deleted]);
    deleted += Number(rows[0].n);
  }
  return deleted;
}
