import fs from 'node:fs';
import path from 'node:path';
import { Db, migrationConfig } from './knex';
import { admitAppRole } from './roles';
import { tenantTablesWithoutRowSecurity } from './row-security';

/**
 * The key of the session-level advisory lock that one migrator holds at a time: every pod of a
 * rollout runs this before its process (deploy/k8s, the init container), so replicas that start
 * together queue here instead of racing on knex's tables, its lock row or the grants. PostgreSQL
 * releases it when the session ends, so a migrator killed midway leaves nothing locked.
 */
const MIGRATION_LOCK = 'industrial_ops.migrations';

/**
 * Applies the pending migrations as the owner role (`db`), then makes `appUser`, the app's
 * login role, a member of app_runtime. Refuses to finish while a tenant table lacks row-level
 * security: a migration that created one forgot enableTenantRowSecurity. One migrator at a time
 * (MIGRATION_LOCK); the others wait, then find nothing left to apply.
 */
export async function migrateToLatest(db: Db, appUser: string | null = null): Promise<string[]> {
  return withMigrationLock(db, async () => {
    const applied = await applyPending(db);
    if (appUser) await admitAppRole(db, appUser);
    const unguarded = await tenantTablesWithoutRowSecurity(db);
    if (unguarded.length) throw new Error(`tenant tables without row-level security: ${unguarded.join(', ')} (call enableTenantRowSecurity in their migration)`);
    return applied;
  });
}

/**
 * knex's `latest`, unless this release has nothing pending. A database ahead of the release (a
 * newer one migrated it: a rollback, or an older pod restarting during a rollout) has migrations
 * this release does not know, which `latest` would call a corrupt directory; the release's own
 * being all applied, it runs on that schema (migrations keep the previous release working:
 * docs/DEVELOPING.md), so there is nothing to do. Pending ones on such a database still fail.
 */
async function applyPending(db: Db): Promise<string[]> {
  const [, pending] = (await db.migrate.list({ disableMigrationsListValidation: true })) as [unknown[], unknown[]];
  if (!pending.length) return [];
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

async function withMigrationLock<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const client = db.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    await db.raw('select pg_advisory_lock(hashtext(?))', [MIGRATION_LOCK]).connection(connection);
    try {
      return await fn();
    } finally {
      await db.raw('select pg_advisory_unlock(hashtext(?))', [MIGRATION_LOCK]).connection(connection);
    }
  } finally {
    await client.releaseConnection(connection);
  }
}

export interface MigrationStatus {
  /** Applied, oldest first. */
  applied: Array<{ name: string; batch: number; migration_time: Date }>;
  /** This release's migrations not applied yet (`npm run migrate` applies them). */
  pending: string[];
  /** Applied, but not in this release: a newer release migrated the database. */
  unknown: string[];
}

/**
 * What is applied of this release's migrations, read only: knex's own table, which only the owner
 * role (DATABASE_MIGRATION_URL) reads; the app's role has no privilege on it (app_runtime's grants
 * leave knex's tables out).
 */
export async function migrationStatus(db: Db): Promise<MigrationStatus> {
  const [, pending] = (await db.migrate.list({ disableMigrationsListValidation: true })) as [unknown[], Array<{ file: string }>];
  const applied: MigrationStatus['applied'] = await db('knex_migrations').orderBy('id').select('name', 'batch', 'migration_time');
  const { directory, loadExtensions } = migrationConfig();
  const release = new Set(fs.readdirSync(directory as string).filter((file) => (loadExtensions ?? []).includes(path.extname(file))));
  return { applied, pending: pending.map((p) => p.file), unknown: applied.map((m) => m.name).filter((name) => !release.has(name)) };
}
