import { parseArgs } from 'node:util';
import { createDb } from '../db/knex';
import { provisionTenant } from '../db/tenants';
import { normalizeEmail } from '../domain/email';
import { PASSWORD_MIN_LENGTH } from '../domain/auth/passwords';
import { isPlanName, PLAN_NAMES } from '../domain/tenancy/plans';
import { loadStackEnvFile } from '../infra/env-file';

const USAGE = `usage: npm run tenant:create -- --name <name> --plan <${PLAN_NAMES.join('|')}> --admin-email <email> --admin-password <password>`;

/** Operator command: a new tenant and its first admin. The last stdout line is JSON with the new ids. */
async function main(): Promise<void> {
  loadStackEnvFile();
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'admin-email': { type: 'string' },
      'admin-password': { type: 'string' },
      slug: { type: 'string' },
    },
  });
  const { name, plan } = values;
  const email = values['admin-email'] && normalizeEmail(values['admin-email']);
  const password = values['admin-password'];
  if (!name || !plan || email === undefined || !password) throw new Error(USAGE);
  if (!isPlanName(plan)) throw new Error(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  // The rule POST /auth/login applies, so the admin created here can always sign in.
  if (!email) throw new Error('--admin-email is not an email address');
  if (password.length < PASSWORD_MIN_LENGTH) throw new Error(`--admin-password needs at least ${PASSWORD_MIN_LENGTH} characters`);
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set and no .data/stack.env was found (is `npm run up` running?)');
  const db = createDb(url, { min: 0, max: 2 });
  try {
    const t = await provisionTenant(db, { name, plan, adminEmail: email, adminPassword: password, slug: values.slug });
    console.log(JSON.stringify({ tenant_id: t.tenant_id, admin_user_id: t.admin_user_id, slug: t.slug, plan: t.plan }));
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
