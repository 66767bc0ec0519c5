/**
 * db/migrate.ts as a rollout runs it (deploy/k8s: every new pod migrates before its process): on a
 * database of its own in the stack's PostgreSQL, several migrators started at once apply each
 * migration once and all succeed, and a release older than the database (a rollback, an old pod
 * restarting mid-rollout) starts without migrating instead of calling the directory corrupt.
 */
import { randomBytes } from 'node:crypto';
import { createDb, Db } from '../../db/knex';
import { migrateToLatest } from '../../db/migrate';
import { databaseUser } from '../../db/roles';
import { openOwnerDb } from '../support/owner-db';

const name = `rollout_${randomBytes(4).toString('hex')}`;
const appUser = databaseUser(process.env.DATABASE_URL!);
let server: Db;
const pools: Db[] = [];

/** A pool of the owner on the test's own database, as the migration CLI opens it. */
function migrator(): Db {
  const url = new URL(process.env.DATABASE_MIGRATION_URL!);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { min: 0, max: 2 });
  pools.push(db);
  return db;
}

beforeAll(async () => {
  server = openOwnerDb();
  await server.raw('create database ??', [name]);
});

afterAll(async () => {
  await Promise.all(pools.map((db) => db.destroy()));
  await server.raw('drop database if exists ?? with (force)', [name]);
  await server.destroy();
});

it('lets replicas that start together migrate one at a time: each migration applied once, every one of them succeeds', async () => {
  const results = await Promise.allSettled([1, 2, 3].map(() => migrateToLatest(migrator(), appUser)));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
  const applied = results.map((r) => (r as PromiseFulfilledResult<string[]>).value);
  // One of them applied everything, the others found nothing left.
  const all = applied.flat();
  expect(applied.filter((list) => list.length > 0)).toHaveLength(1);
  expect(new Set(all).size).toBe(all.length);
  const db = migrator();
  const { rows } = await db.raw('select name, count(*)::int as n from knex_migrations group by name having count(*) > 1');
  expect(rows).toEqual([]);
  expect((await db('knex_migrations').count<{ count: string }[]>('* as count'))[0]!.count).toBe(String(all.length));
  // And the app's role was admitted by them.
  const { rows: member } = await db.raw(`select pg_has_role(?, 'app_runtime', 'MEMBER') as member`, [appUser]);
  expect(member).toEqual([{ member: true }]);
}, 180_000);

it('starts an older release on a database a newer one migrated, applying nothing', async () => {
  const db = migrator();
  const newer = '29990101000000_from_a_newer_release.js';
  await db('knex_migrations').insert({ name: newer, batch: 999, migration_time: new Date() });
  try {
    await expect(migrateToLatest(migrator(), appUser)).resolves.toEqual([]);
  } finally {
    await db('knex_migrations').where({ name: newer }).del();
  }
  // Without this release's own migrations applied it still refuses (knex: a corrupt directory).
  const last = (await db('knex_migrations').orderBy('id', 'desc').first<{ name: string }>('name'))!.name;
  await db('knex_migrations').where({ name: last }).del();
  await db('knex_migrations').insert({ name: newer, batch: 999, migration_time: new Date() });
  await expect(migrateToLatest(migrator(), appUser)).rejects.toThrow(/corrupt/);
}, 120_000);
