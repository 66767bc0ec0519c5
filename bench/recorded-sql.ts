/**
 * Same-work floors: the SQL statements the product sends for one operation, recorded from its
 * knex instance, and replayed from a bare `pg` client (no knex, no product code). The floor of an
 * operation is then the same database work with nothing of ours around it, so a ratio against it
 * says what our code costs, not what the machine or PostgreSQL does (docs/decisions/same-work-floors.md).
 *
 * A replay gives every UUID in the statements' parameters that is not in `keep` (the tenant, the
 * plan, the user...) a fresh one, the same throughout one replay, so rows keyed by request or
 * record ids are new rows each time, as the product's would be.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Pool, type PoolClient } from 'pg';
import { SCOPE_SETTING, TENANT_SETTING } from '../db/row-security';

export interface RecordedStatement {
  sql: string;
  bindings: unknown[];
  txId?: string;
}

interface KnexQueryEvent {
  sql: string;
  bindings?: unknown[];
  __knexTxId?: string;
}

/** Every statement `db` sends while `operation` runs (other users of `db` should be idle meanwhile). */
export async function recordStatements<T>(db: Knex, operation: () => Promise<T>): Promise<{ result: T; statements: RecordedStatement[] }> {
  const statements: RecordedStatement[] = [];
  const listener = (event: KnexQueryEvent) => statements.push({ sql: event.sql, bindings: [...(event.bindings ?? [])], txId: event.__knexTxId });
  db.client.on('query', listener);
  try {
    const result = await operation();
    return { result, statements };
  } finally {
    db.client.removeListener('query', listener);
  }
}

/** The statements of the transactions (or, outside one, the statements themselves) that mention `table`. */
export function statementsTouching(statements: readonly RecordedStatement[], table: string): RecordedStatement[] {
  const mentions = (s: RecordedStatement) => new RegExp(`\\b"?${table}"?\\b`).test(s.sql);
  const txIds = new Set(statements.filter((s) => mentions(s) && s.txId).map((s) => s.txId));
  return statements.filter((s) => (s.txId && txIds.has(s.txId)) || (!s.txId && mentions(s)));
}

/** Every UUID in the statements' parameters (a read replays as recorded: keep them all). */
export function uuidsIn(statements: readonly RecordedStatement[]): string[] {
  return statements.flatMap((s) => s.bindings.flatMap((b) => (typeof b === 'string' ? (b.match(UUID) ?? []) : [])));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The bindings (arrays included) with every UUID outside `keep` replaced, consistently within
 * `fresh`, and every occurrence of a `tags` string (a sender's event id prefix, say) suffixed with
 * `replay`, so keys the product dedupes on are new in each replay.
 */
export function freshBindings(
  bindings: readonly unknown[],
  keep: ReadonlySet<string>,
  fresh: Map<string, string>,
  tags: readonly string[] = [],
  replay = 0,
  shiftDatesMs = 0,
): unknown[] {
  const swap = (id: string) => {
    if (keep.has(id.toLowerCase())) return id;
    let next = fresh.get(id.toLowerCase());
    if (!next) fresh.set(id.toLowerCase(), (next = randomUUID()));
    return next;
  };
  const rewrite = (b: unknown): unknown => {
    if (Array.isArray(b)) return b.map(rewrite);
    if (b instanceof Date) return new Date(b.getTime() + replay * shiftDatesMs);
    if (typeof b !== 'string') return b;
    return tags.reduce((text, tag) => text.split(tag).join(`${tag}.${replay}`), b.replace(UUID, swap));
  };
  return bindings.map(rewrite);
}

export interface BareReplay {
  /** Runs the statements once on one pooled connection; answers the rows of those that returned any. */
  run(): Promise<unknown[][]>;
  /** Milliseconds spent in each statement over all replays, slowest first (where a floor's time goes). */
  timeByStatement(): string;
  close(): Promise<void>;
}

/**
 * A bare pg pool (its own connections) replaying `statements`; `keep`: the ids that stay as
 * recorded. Each connection is set to `tenantId`'s row-security scope once, as the product's pool
 * does when a connection changes scope (db/db-scope.ts: not a knex query, so not recorded).
 * `tags`: strings suffixed per replay (keys the product dedupes on); `shiftDatesMs`: how far each
 * replay moves the recorded dates, so a replayed batch of readings is the next one in time, as a
 * sender's is, not the same instants again and again.
 */
export function bareReplay(
  connectionString: string,
  tenantId: string,
  statements: readonly RecordedStatement[],
  keep: Iterable<string>,
  { tags = [], shiftDatesMs = 0 }: { tags?: readonly string[]; shiftDatesMs?: number } = {},
): BareReplay {
  const pool = new Pool({ connectionString, max: 4 });
  pool.on('connect', (client) => {
    void client.query(`select set_config('${SCOPE_SETTING}', '', false), set_config('${TENANT_SETTING}', $1, false)`, [tenantId]);
  });
  const kept = new Set([...keep].map((id) => id.toLowerCase()));
  let replays = 0;
  const spent = statements.map(() => 0);
  return {
    async run() {
      const client: PoolClient = await pool.connect();
      try {
        const fresh = new Map<string, string>();
        const replay = (replays += 1);
        const results: unknown[][] = [];
        for (const [i, s] of statements.entries()) {
          const t0 = performance.now();
          const { rows } = await client.query(s.sql, freshBindings(s.bindings, kept, fresh, tags, replay, shiftDatesMs));
          spent[i] += performance.now() - t0;
          if (rows.length) results.push(rows);
        }
        return results;
      } finally {
        client.release();
      }
    },
    timeByStatement: () =>
      statements
        .map((s, i) => ({ head: s.sql.replace(/\s+/g, ' ').trim().slice(0, 40), ms: spent[i] }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 3)
        .map(({ head, ms }) => `${Math.round(ms)} ms ${head}`)
        .join(' | '),
    close: () => pool.end(),
  };
}

/** The statements by their first words, most frequent first: what a floor replays, at a glance. */
export function describeStatements(statements: readonly RecordedStatement[], top = 4): string {
  const counts = new Map<string, number>();
  for (const s of statements) {
    const head = s.sql.replace(/\s+/g, ' ').trim().slice(0, 40);
    counts.set(head, (counts.get(head) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([head, n]) => `${n}x ${head}`)
    .join(' | ');
}
