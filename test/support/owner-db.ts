import { createDb, Db } from '../../db/knex';

/**
 * The owner role's connection (DATABASE_MIGRATION_URL, which global-setup.ts exports; the
 * superuser in the test stack): for tests that play an attacker with more rights than the app's
 * role, which `api.deps.db` is.
 */
export function openOwnerDb(): Db {
  const url = process.env.DATABASE_MIGRATION_URL;
  if (!url) throw new Error('DATABASE_MIGRATION_URL is not set (test/support/global-setup.ts exports it)');
  return createDb(url, { min: 0, max: 2 });
}
