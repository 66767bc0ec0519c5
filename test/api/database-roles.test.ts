import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { startServiceProcess } from '../../scripts/service-process';
import { declareRequestTenant, runRequestScope } from '../../db/db-scope';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { createDb } from '../../db/knex';
import { migrateToLatest } from '../../db/migrate';
import { runUnit } from '../../db/unit-of-work';
import { acrossTenants, declareTenant, tenantTables, tenantTablesWithoutRowSecurity } from '../../db/row-security';
import { appRoleProblems, databaseUser } from '../../db/roles';
import { provisionTenant } from '../../db/tenants';
import { createTenant, expectError, startTestApi, TestApi, TestTenant } from '../support/api';
import { startTestPostgres } from '../support/test-postgres';

// The API and the worker connect as the app's role (DATABASE_URL of the test stack, as of
// `npm run up` and docker-compose.yml); api.deps.db is that role.
let api: TestApi;
let [a, b] = [] as TestTenant[];

/** A new tenant with one asset, created through the API. */
async function tenantWithAsset(): Promise<TestTenant> {
  const t = await createTenant(api);
  const res = await api.request('/api/v1/assets', { method: 'POST', token: t.token, json: { name: 'Walled pump', type: 'pump' } });
  expect(res.status).toBe(201);
  return t;
}

beforeAll(async () => {
  api = await startTestApi();
  [a, b] = await Promise.all([tenantWithAsset(), tenantWithAsset()]);
});
afterAll(() => api.close());

/** The SQLSTATE of the statement's refusal, run alone in a transaction of the app's role. */
async function refusal(sql: string): Promise<{ code: string; message: string } | 'accepted'> {
  try {
    await api.deps.db.transaction((tx) => tx.raw(sql));
    return 'accepted';
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message: message.replace(/^.* - /, '') };
  }
}

describe("the app's database role", () => {
  it('owns nothing, is not superuser and has neither CREATEROLE nor BYPASSRLS', async () => {
    expect(await appRoleProblems(api.deps.db)).toEqual([]);
    const { rows } = await api.deps.db.raw(`select pg_has_role(current_user, 'audit_purger', 'MEMBER') as purger`);
    expect(rows[0]).toEqual({ purger: false });
  });

  it("cannot disable the audit trail's trigger, become audit_purger, set session_replication_role or truncate", async () => {
    // 42501 = insufficient_privilege: PostgreSQL's own refusal, not the audit guard's.
    expect(await refusal('alter table audit_log disable trigger audit_log_append_only')).toEqual({ code: '42501', message: 'must be owner of table audit_log' });
    expect(await refusal('set role audit_purger')).toEqual({ code: '42501', message: 'permission denied to set role "audit_purger"' });
    expect(await refusal('set session_replication_role = replica')).toEqual({ code: '42501', message: 'permission denied to set parameter "session_replication_role"' });
    expect(await refusal('truncate audit_log')).toEqual({ code: '42501', message: 'permission denied for table audit_log' });
    expect(await refusal('alter table assets disable row level security')).toEqual({ code: '42501', message: 'must be owner of table assets' });
  });

  it('still runs the retention purge through its SECURITY DEFINER function', async () => {
    const { rows } = await api.deps.db.raw(`select audit_log_purge_expired(?, null, now() - interval '400 days', 10) as n`, [a.tenantId]);
    expect(rows[0]).toEqual({ n: 0 });
  });
});

describe('a privileged database role at start', () => {
  const ROOT = path.resolve(__dirname, '..', '..');
  // What a production start needs besides: a metrics token, a public URL, no test-only settings.
  const production = {
    ...process.env,
    APP_ENV: 'production',
    METRICS_TOKEN: 'metrics-token-of-the-role-test-0123456789',
    API_PUBLIC_URL: 'https://ops.example.com',
    TEST_SCRYPT_LOG2_N: '',
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'false',
    SMTP_URL: '',
    API_PORT: '0',
    WORKER_HTTP_PORT: '0',
  };
  // The stack's migration URL: the embedded server's superuser, owner of every table.
  const superuserUrl = process.env.DATABASE_MIGRATION_URL!;

  it.each(['api/server.js', 'workers/main.js'])('stops a production dist/%s with one line naming what the role may do, exit 1', (script) => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist', script)], { env: { ...production, DATABASE_URL: superuserUrl }, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(1);
    const lines = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const refusal = lines.find((l) => l.level === 60)!;
    expect(refusal).toMatchObject({ msg: expect.stringMatching(/refused to start: DATABASE_URL connects as a privileged role/) });
    expect(refusal.problems).toEqual(expect.arrayContaining([expect.stringMatching(/is a superuser$/), expect.stringMatching(/owns \d+ relations of the schema$/)]));
    // Nothing was served: the API never listened.
    expect(lines.some((l) => l.msg === 'api listening' || l.msg === 'worker ready')).toBe(false);
  });

  it("starts a production API on the app's own role, and only warns on a privileged one outside production", async () => {
    const logs = path.join(ROOT, '.run', 'database-roles-api.log');
    const fine = await startServiceProcess('api', { ...production, DATABASE_URL: process.env.DATABASE_URL! }, logs);
    await fine.stop();
    const warned = await startServiceProcess('api', { DATABASE_URL: superuserUrl }, logs);
    try {
      const line = await warned.logLine('DATABASE_URL connects as a privileged role: connect the app as a role that owns nothing (DATABASE_MIGRATION_URL for the migrations)');
      expect(line).toMatchObject({ level: 40, problems: expect.arrayContaining([expect.stringMatching(/is a superuser$/)]) });
      expect((await fetch(`${warned.url}/livez`)).status).toBe(200);
    } finally {
      await warned.stop();
      fs.rmSync(logs, { force: true });
    }
  });
});

describe('row-level security', () => {
  it('is enabled, forced and has the tenant policy on every table with a tenant_id column', async () => {
    const tables = await tenantTables(api.deps.db);
    expect(tables).toEqual(expect.arrayContaining(['assets', 'audit_log', 'users', 'webhooks', 'outbox_events']));
    expect(await tenantTablesWithoutRowSecurity(api.deps.db)).toEqual([]);
  });

  it("shows a transaction declared for tenant A none of B's rows, even without a tenant filter", async () => {
    const seen = await api.deps.db.transaction(async (tx) => {
      await declareTenant(tx, a.tenantId);
      const assets = await tx.raw('select distinct tenant_id from assets');
      const users = await tx.raw('select count(*)::int as n from users where tenant_id = ?', [b.tenantId]);
      const updated = await tx.raw(`update assets set name = 'taken' where tenant_id = ?`, [b.tenantId]);
      return { assets: assets.rows, usersOfB: users.rows[0].n, updatedOfB: updated.rowCount };
    });
    expect(seen).toEqual({ assets: [{ tenant_id: a.tenantId }], usersOfB: 0, updatedOfB: 0 });
  });

  it("shows a signed-in user's request nothing before its tenant is declared, then that tenant's rows only", async () => {
    const seen = await runRequestScope('tenant', async () => {
      const before = (await api.deps.db.raw('select count(*)::int as n from assets')).rows[0].n;
      declareRequestTenant(b.tenantId);
      const pool = (await api.deps.db.raw('select distinct tenant_id from assets')).rows;
      const inTransaction = await api.deps.db.transaction(async (tx) => (await tx.raw('select distinct tenant_id from users')).rows);
      return { before, pool, inTransaction };
    });
    expect(seen).toEqual({ before: 0, pool: [{ tenant_id: b.tenantId }], inTransaction: [{ tenant_id: b.tenantId }] });
  });

  it('shows a connection that declared neither a tenant nor the system scope no rows at all (fail closed)', async () => {
    // A plain connection of the app's role, without the pool's scope (db/db-scope.ts).
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        'select (select count(*) from assets)::int as assets, (select count(*) from users)::int as users, (select count(*) from audit_log)::int as audit',
      );
      expect(rows[0]).toEqual({ assets: 0, users: 0, audit: 0 });
      await expect(client.query(`insert into assets (tenant_id, name, type) values ($1, 'Planted', 'pump')`, [a.tenantId])).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.end();
    }
  });

  it("refuses a row written for tenant B inside tenant A's transaction", async () => {
    await expect(
      api.deps.db.transaction(async (tx) => {
        await declareTenant(tx, a.tenantId);
        await tx('assets').insert({ tenant_id: b.tenantId, name: 'Planted', type: 'pump' });
      }),
    ).rejects.toMatchObject({ code: '42501', message: expect.stringContaining('violates row-level security policy') });
  });

  it('refuses a WhatsApp verify token another tenant holds (409): the check looks across tenants from inside the unit', async () => {
    const verifyToken = `verify-${randomUUID()}`;
    const body = () => ({
      display_phone_number: '+34600111222',
      phone_number_id: String(100000000000 + Math.floor(Math.random() * 1e9)),
      access_token: `tok-${randomUUID()}`,
      verify_token: verifyToken,
    });
    const register = (t: TestTenant) => api.request('/api/v1/whatsapp/numbers', { method: 'POST', token: t.token, json: body() });
    expect((await register(a)).status).toBe(201);
    const taken = await register(b);
    expectError(taken, 409, 'CONFLICT');
    expect(taken.body.detail).toBe('choose another verify_token');
  });

  it("narrows a tenant's transaction again after its one read across tenants", async () => {
    const tenantsOfAssets = async (tx: Knex.Transaction) =>
      ((await tx.raw('select distinct tenant_id from assets')).rows as { tenant_id: string }[]).map((r) => r.tenant_id).sort();
    const seen = await api.deps.db.transaction(async (tx) => {
      await declareTenant(tx, a.tenantId);
      const across = await acrossTenants(tx, a.tenantId, () => tenantsOfAssets(tx));
      return { across: across.filter((id) => id === a.tenantId || id === b.tenantId), after: await tenantsOfAssets(tx) };
    });
    expect(seen).toEqual({ across: [a.tenantId, b.tenantId].sort(), after: [a.tenantId] });
  });

  it("walls every unit of work: a raw query in tenant A's unit reads A's rows only", async () => {
    let seen: unknown;
    const rollback = new Error('rolled back on purpose');
    await expect(
      runUnit(api.deps.db, { tenantId: a.tenantId, actor: { type: 'system', id: null }, requestId: null }, async (unit) => {
        seen = (await unit.tx.raw('select distinct tenant_id from assets')).rows;
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(seen).toEqual([{ tenant_id: a.tenantId }]);
  });

  describe("a unit of work's declaration of its tenant", () => {
    const rollback = new Error('rolled back on purpose');
    const system = { type: 'system', id: null } as const;

    /** The tenants of the assets `db`'s unit for `tenantId` reads, and the statements it sent (rolled back). */
    async function unitReading(db: Knex, tenantId: string): Promise<{ seen: unknown; declared: boolean }> {
      const sent: string[] = [];
      const listener = (event: { sql: string }) => sent.push(event.sql);
      api.deps.db.client.on('query', listener);
      let seen: unknown;
      try {
        await expect(
          runUnit(db, { tenantId, actor: system, requestId: null }, async (unit) => {
            seen = (await unit.tx.raw('select distinct tenant_id from assets')).rows;
            throw rollback;
          }),
        ).rejects.toBe(rollback);
      } finally {
        api.deps.db.client.removeListener('query', listener);
      }
      return { seen, declared: sent.some((sql) => sql.includes('set_config')) };
    }

    it("is skipped in its own tenant's request, whose connection already sees that tenant's rows only", async () => {
      const result = await runRequestScope('tenant', async () => {
        declareRequestTenant(a.tenantId);
        return unitReading(api.deps.db, a.tenantId);
      });
      expect(result).toEqual({ seen: [{ tenant_id: a.tenantId }], declared: false });
    });

    it("is made for another tenant than the request's, and outside requests", async () => {
      const inRequestOfA = await runRequestScope('tenant', async () => {
        declareRequestTenant(a.tenantId);
        return unitReading(api.deps.db, b.tenantId);
      });
      expect(inRequestOfA).toEqual({ seen: [{ tenant_id: b.tenantId }], declared: true });
      expect(await unitReading(api.deps.db, b.tenantId)).toEqual({ seen: [{ tenant_id: b.tenantId }], declared: true });
    });

    it("is made in a nested unit, whose outer transaction may have declared another tenant than the connection's", async () => {
      const nested = await runRequestScope('tenant', async () => {
        declareRequestTenant(b.tenantId);
        return api.deps.db.transaction(async (tx) => {
          await declareTenant(tx, a.tenantId);
          return unitReading(tx as unknown as Knex, b.tenantId);
        });
      });
      expect(nested).toEqual({ seen: [{ tenant_id: b.tenantId }], declared: true });
    });
  });
});

describe('the docker-compose layout: an owner without superuser runs the migrations', () => {
  it('migrates as a CREATEROLE owner, and the app role then works with DML only', async () => {
    const pg = await startTestPostgres({ migrate: false });
    const url = (user: string, password: string) => {
      const u = new URL(pg.ownerDatabaseUrl);
      [u.username, u.password, u.pathname] = [user, password, '/layout'];
      return u.toString();
    };
    const superuser = createDb(pg.ownerDatabaseUrl, { min: 0, max: 1 });
    // As infra/postgres-init/10-roles.sh does (the app's login role exists already: startPostgres made it).
    await superuser.raw(`create role layout_owner login nosuperuser createrole nocreatedb nobypassrls password 'owner-pw'`);
    await superuser.raw(`alter role ${databaseUser(pg.databaseUrl)} password 'app-pw'`);
    await superuser.raw('create database layout owner layout_owner');
    await superuser.destroy();
    const layoutSuperuser = createDb(url('postgres', new URL(pg.ownerDatabaseUrl).password), { min: 0, max: 1 });
    await layoutSuperuser.raw('create role audit_purger nologin');
    await layoutSuperuser.raw('grant create on schema public to audit_purger');
    await layoutSuperuser.raw('grant audit_purger to layout_owner with inherit false, set true');
    await layoutSuperuser.destroy();
    const owner = createDb(url('layout_owner', 'owner-pw'), { min: 0, max: 2 });
    const app = createDb(url(databaseUser(pg.databaseUrl), 'app-pw'), { min: 0, max: 2 });
    try {
      await migrateToLatest(owner, databaseUser(pg.databaseUrl));
      expect(await appRoleProblems(app)).toEqual([]);
      const t = await provisionTenant(app, { name: 'Layout', plan: 'free', adminEmail: `admin-${randomUUID()}@example.com`, adminPassword: `pw-${randomUUID()}` });
      await runUnit(app, { tenantId: t.tenant_id, actor: { type: 'system', id: null }, requestId: null }, async (unit) => {
        await unit.scope.insert('assets', { name: 'Pump', type: 'pump' });
        unit.audit({ action: 'asset.created', resourceType: 'asset', resourceId: null });
      });
      expect(await app('assets').where({ tenant_id: t.tenant_id }).pluck('name')).toEqual(['Pump']);
      // The app still cannot become the purge role (the owner may: it owns everything anyway).
      const { rows } = await app.raw(`select pg_has_role(current_user, 'audit_purger', 'MEMBER') as purger, pg_has_role(current_user, 'app_runtime', 'USAGE') as runtime`);
      expect(rows[0]).toEqual({ purger: false, runtime: true });
      const { rows: schema } = await owner.raw(`select has_schema_privilege('audit_purger', 'public', 'CREATE') as create`);
      expect(schema[0]).toEqual({ create: false });
    } finally {
      await Promise.all([owner.destroy(), app.destroy()]);
      await pg.stop();
    }
  });
});
