import knexFactory, { Knex } from 'knex';
import path from 'node:path';
import { applyScopeOnAcquire } from './db-scope';

export type Db = Knex;
export type Tx = Knex.Transaction;
/** Either the pool or an open transaction: query functions accept both. */
export type Queryable = Knex | Knex.Transaction;

/** A pool whose connections carry the row-level security scope of the code using them (db/db-scope.ts). */
export function createDb(databaseUrl: string, pool: { min: number; max: number } = { min: 0, max: 10 }): Db {
  const db = knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool,
    migrations: migrationConfig(),
    log: JSON_LINES,
  });
  applyScopeOnAcquire(db);
  openPools.add(new WeakRef(db));
  return db;
}

/** The pools this process made (weakly: a pool the process let go of is not kept alive by this list). */
const openPools = new Set<WeakRef<Db>>();

export interface PoolUsage {
  /** Connections lent out to queries and transactions. */
  inUse: number;
  idle: number;
  /** Acquisitions waiting for a connection (the pool is at its maximum, or connecting). */
  pending: number;
  max: number;
}

/** The connection pools of this process, added up (one per process outside tests); destroyed pools drop out. */
export function poolUsage(): PoolUsage {
  const total: PoolUsage = { inUse: 0, idle: 0, pending: 0, max: 0 };
  for (const ref of openPools) {
    const pool = (ref.deref()?.client as { pool?: TarnPool } | undefined)?.pool;
    if (!pool) {
      openPools.delete(ref);
      continue;
    }
    total.inUse += pool.numUsed();
    total.idle += pool.numFree();
    total.pending += pool.numPendingAcquires();
    total.max += pool.max;
  }
  return total;
}

/** What knex's pool (tarn) tells of itself. */
type TarnPool = { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number };

/**
 * knex's own warnings (a connection attempt that failed, a deprecation) as one JSON line each, like
 * the rest of a process's log (pino's numeric levels), with the first line of the message only:
 * not the stack, nor knex's debug output (queries with their values).
 */
const JSON_LINES: Knex.Logger = {
  warn: (message) => writeLine(40, message),
  error: (message) => writeLine(50, message),
  deprecate: (method, alternative) => writeLine(40, `${method} is deprecated: ${alternative}`),
  debug: () => undefined,
};

function writeLine(level: number, message: unknown): void {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), component: 'knex', msg: String(message).split('\n')[0] })}\n`);
}

/** Works from TypeScript sources (tests) and from compiled dist/ alike. */
export function migrationConfig(): Knex.MigratorConfig {
  return {
    directory: path.join(__dirname, 'migrations'),
    loadExtensions: [path.extname(__filename)],
    tableName: 'knex_migrations',
  };
}

/**
 * One statement run as a named prepared statement on a pooled connection (parsed and planned
 * once per connection, not per call): for a hot statement that runs on every request. The
 * connection comes from knex's pool, so the row scope of the caller applies (db/db-scope.ts).
 */
export async function runPrepared<Row>(db: Db, name: string, text: string, values: readonly unknown[]): Promise<Row[]> {
  const client = db.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(connection: PgConnection): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name, text, values })).rows as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}

type PgConnection = { query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }> };
