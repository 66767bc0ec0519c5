import { createDb } from '../db/knex';
import { provisionTenant } from '../db/tenants';
import { loadStackEnvFile } from '../infra/env-file';

/** Idempotent demo tenant for `npm run up`; prints the login as JSON on its last line. */
async function main(): Promise<void> {
  loadStackEnvFile();
  const url = process.env.DATABASE_URL;
  const password = process.env.DEMO_ADMIN_PASSWORD;
  if (!url || !password) throw new Error('DATABASE_URL and DEMO_ADMIN_PASSWORD are required');
  const email = process.env.DEMO_ADMIN_EMAIL ?? 'admin@demo.example.com';
  const db = createDb(url, { min: 0, max: 2 });
  try {
    const tenant = await provisionTenant(db, { name: 'Demo Plant', slug: 'demo-plant', plan: 'enterprise', adminEmail: email, adminPassword: password }, { resetIfExists: true });
    console.log(JSON.stringify({ tenant_id: tenant.tenant_id, email, password, created: tenant.created }));
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
