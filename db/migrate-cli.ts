import { createDb } from './knex';
import { migrateToLatest } from './migrate';
import { databaseUser } from './roles';

/**
 * Migrates as the owner role of DATABASE_MIGRATION_URL and admits the app's role of DATABASE_URL
 * to its privileges. With DATABASE_URL alone, the app migrates as itself and owns the tables.
 * Reads the environment only: `npm run migrate` (scripts/run-dist.mjs) adds the addresses of a
 * running `npm run up` stack, so the database layer needs nothing of infra/.
 */
async function main(): Promise<void> {
  const appUrl = process.env.DATABASE_URL;
  if (!appUrl) throw new Error('DATABASE_URL is required');
  const ownerUrl = process.env.DATABASE_MIGRATION_URL || null;
  if (!ownerUrl) {
    console.error(
      JSON.stringify({
        level: 'warn',
        msg: 'DATABASE_MIGRATION_URL is not set: migrating as the app role of DATABASE_URL, which then owns the tables and could disable the audit trigger or the row-level security (docs/decisions/database-roles.md)',
      }),
    );
  }
  const db = createDb(ownerUrl ?? appUrl, { min: 0, max: 2 });
  try {
    const applied = await migrateToLatest(db, ownerUrl ? databaseUser(appUrl) : null);
    console.log(JSON.stringify({ msg: 'migrations applied', applied }));
  } finally {
    await db.destroy();
  }
}

// One JSON line like the pino lines of the API and the worker (60: fatal): the error's class,
// message and PostgreSQL code, never a row's values (a migration's data step may quote them).
main().catch((err: unknown) => {
  const { name, message, code } = err instanceof Error ? (err as Error & { code?: string }) : { name: 'Error', message: String(err), code: undefined };
  console.error(
    JSON.stringify({ level: 60, time: new Date().toISOString(), component: 'migrate', msg: 'migrations failed', err: { type: name, message: message.split('\n')[0], code } }),
  );
  process.exit(1);
});
