import { loadStackEnvFile } from '../infra/env-file';
import { createDb } from './knex';
import { migrateToLatest } from './migrate';

async function main(): Promise<void> {
  loadStackEnvFile();
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is required');
  const db = createDb(url, { min: 0, max: 2 });
  try {
    const applied = await migrateToLatest(db);
    console.log(JSON.stringify({ msg: 'migrations applied', applied }));
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
