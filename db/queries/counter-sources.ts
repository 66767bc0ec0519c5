import type { Knex } from 'knex';
import { isUuid } from '../../domain/ids';

/**
 * Free-text counter sources and the opaque references the plan workflow carries instead
 * (db/migrations/20261125180100_counter_sources.ts). Idempotent: the same text is one reference.
 */
export async function counterSourceRef(db: Knex | Knex.Transaction, tenantId: string, text: string): Promise<string> {
  const [row] = await db
    .raw(
      `insert into maintenance_counter_sources (tenant_id, text) values (?, ?)
     on conflict (tenant_id, text) do update set text = excluded.text
     returning id`,
      [tenantId, text],
    )
    .then((r: { rows: Array<{ id: string }> }) => r.rows);
  return row!.id;
}

/**
 * The text behind a reference. Readings recorded before sources were free text carry the
 * identifier itself, which is returned as it is.
 */
export async function counterSourceText(db: Knex | Knex.Transaction, tenantId: string, ref: string): Promise<string> {
  if (!isUuid(ref)) return ref;
  const row = await db('maintenance_counter_sources').where({ tenant_id: tenantId, id: ref }).first('text');
  return row?.text ?? ref;
}
