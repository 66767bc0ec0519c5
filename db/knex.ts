import knexFactory, { Knex } from 'knex';
import path from 'node:path';

export type Db = Knex;
export type Tx = Knex.Transaction;
/** Either the pool or an open transaction: query functions accept both. */
export type Queryable = Knex | Knex.Transaction;

export function createDb(databaseUrl: string, pool: { min: number; max: number } = { min: 0, max: 10 }): Db {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool,
    migrations: migrationConfig(),
  });
}

/** Works from TypeScript sources (tests) and from compiled dist/ alike. */
export function migrationConfig(): Knex.MigratorConfig {
  return {
    directory: path.join(__dirname, 'migrations'),
    loadExtensions: [path.extname(__filename)],
    tableName: 'knex_migrations',
  };
}
