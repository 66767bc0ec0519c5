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
  });
  applyScopeOnAcquire(db);
  return db;
}

/** Works from TypeScript sources (tests) and from compiled dist/ alike. */
export function migrationConfig(): Knex.MigratorConfig {
  return {
    directory: path.join(__dirname, 'migrations'),
    loadExtensions: [path.extname(__filename)],
    tableName: 'knex_migrations',
  };
}
