/** `migrations status`: what is applied of this release's migrations (db/migrate.ts); `npm run migrate` applies them, nothing here does. */
import { Command } from 'commander';
import { createDb } from '../../db/knex';
import { migrationStatus } from '../../db/migrate';
import { fields, table } from '../output';
import type { Perform } from '../perform';

export function registerMigrations(program: Command, perform: Perform): void {
  const migrations = program.command('migrations').description('the state of the database schema (applying it is `npm run migrate`, or node dist/db/migrate-cli.js)');

  migrations
    .command('status')
    .description("applied, pending and unknown migrations; reads knex's own table, which only the owner role reads: DATABASE_MIGRATION_URL (else DATABASE_URL)")
    .action((_options: unknown, command: Command) =>
      perform(command, async (rt) => {
        const db = createDb(process.env.DATABASE_MIGRATION_URL || rt.config().databaseUrl, { min: 0, max: 1 });
        try {
          const status = await migrationStatus(db);
          const last = status.applied.at(-1) ?? null;
          const json = { up_to_date: status.pending.length === 0, applied: status.applied.length, last_applied: last, pending: status.pending, unknown: status.unknown };
          const text = [
            fields([
              ['applied', status.applied.length],
              ['last applied', last ? `${last.name} (batch ${last.batch}, ${last.migration_time.toISOString()})` : null],
              ['pending', status.pending.length],
            ]),
            status.pending.length ? `\npending (npm run migrate applies them):\n${table(status.pending, [['migration', (name) => name]])}` : '',
            status.unknown.length ? `\napplied by a newer release:\n${table(status.unknown, [['migration', (name) => name]])}` : '',
          ].join('');
          return { json, text };
        } finally {
          await db.destroy();
        }
      }),
    );
}
