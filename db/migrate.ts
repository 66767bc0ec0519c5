import { Db } from './knex';
import { admitAppRole } from './roles';
import { tenantTablesWithoutRowSecurity } from './row-security';

/**
 * Applies the pending migrations as the owner role (`db`), then makes `appUser`, the app's
 * login role, a member of app_runtime. Refuses to finish while a tenant table lacks row-level
 * security: a migration that created one forgot enableTenantRowSecurity.
 */
export async function migrateToLatest(db: Db, appUser: string | null = null): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  if (appUser) await admitAppRole(db, appUser);
  const unguarded = await tenantTablesWithoutRowSecurity(db);
  if (unguarded.length) throw new Error(`tenant tables without row-level security: ${unguarded.join(', ')} (call enableTenantRowSecurity in their migration)`);
  return applied;
}
