/**
 * One page of a list and its total (db/pagination.ts), on the real database: they come from one
 * statement, so a row committed while the page is read can never give `total: 1` with no items
 * (the demo test once saw exactly that), and a page read inside a transaction uses its
 * connection for one query at a time.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paginate } from '../../db/pagination';
import { tenantScope } from '../../db/tenant-scope';
import { createTenant, startTestApi, TestApi, TestTenant } from '../support/api';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTenant(api);
});
afterAll(() => api?.close());

const prefix = `page-${randomUUID()}`;
const assetsNamed = (db: Knex | Knex.Transaction, stem: string) =>
  tenantScope(db, tenant.tenantId).table('assets').where('name', 'like', `${stem}%`).orderBy('name', 'desc').select('id', 'name');

/** The SQL of every statement the shared pool runs while `work` does. */
async function statementsDuring<T>(work: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const listen = (query: { sql: string }) => sql.push(query.sql);
  api.deps.db.on('query', listen);
  try {
    return { result: await work(), sql };
  } finally {
    api.deps.db.off('query', listen);
  }
}

const ownStatements = (sql: string[]) => sql.filter((s) => s.includes('"assets"') && s.includes('like'));

beforeAll(async () => {
  const rows = Array.from({ length: 7 }, (_, i) => ({ tenant_id: tenant.tenantId, name: `${prefix}-${i}`, type: 'pump' }));
  await api.deps.db('assets').insert(rows);
});

it('answers a page in its order with its total, in one statement, and adds no column to the items', async () => {
  const { result, sql } = await statementsDuring(() => paginate<{ id: string; name: string }>(assetsNamed(api.deps.db, prefix), { skip: 2, limit: 3 }));
  expect(result.total).toBe(7);
  expect(result.items.map((a) => a.name)).toEqual([`${prefix}-4`, `${prefix}-3`, `${prefix}-2`]);
  for (const item of result.items) expect(Object.keys(item).sort()).toEqual(['id', 'name']);
  expect(ownStatements(sql)).toHaveLength(1);

  const shaped = await paginate(assetsNamed(api.deps.db, prefix), { skip: 6, limit: 3 }, (row: { name: string }) => row.name.toUpperCase());
  expect(shaped).toEqual({ items: [`${prefix}-0`.toUpperCase()], total: 7, skip: 6, limit: 3 });
});

it('counts an empty page past the end apart, and an empty first page is a total of 0 in one statement', async () => {
  const past = await statementsDuring(() => paginate(assetsNamed(api.deps.db, prefix), { skip: 20, limit: 5 }));
  expect(past.result).toEqual({ items: [], total: 7, skip: 20, limit: 5 });
  expect(ownStatements(past.sql)).toHaveLength(2);

  const none = await statementsDuring(() => paginate(assetsNamed(api.deps.db, `${prefix}-none`), { skip: 0, limit: 5 }));
  expect(none.result).toEqual({ items: [], total: 0, skip: 0, limit: 5 });
  expect(ownStatements(none.sql)).toHaveLength(1);
});

it('never answers a total its items contradict while rows are being committed', async () => {
  const stem = `race-${randomUUID()}`;
  for (let round = 0; round < 40; round += 1) {
    const [page] = await Promise.all([
      paginate(assetsNamed(api.deps.db, stem), { skip: 0, limit: 100 }),
      api.deps.db('assets').insert({ tenant_id: tenant.tenantId, name: `${stem}-${String(round).padStart(2, '0')}`, type: 'pump' }),
    ]);
    expect(page.items).toHaveLength(page.total);
  }
});

it('reads inside a transaction through its one connection, seeing its own uncommitted rows', async () => {
  // Overlapping queries on the transaction's client fail this file through test/support/no-overlapping-queries.ts.
  await api.deps.db
    .transaction(async (trx) => {
      await trx('assets').insert({ tenant_id: tenant.tenantId, name: `${prefix}-in-trx`, type: 'pump' });
      const page = await paginate<{ name: string }>(assetsNamed(trx, prefix), { skip: 0, limit: 2 });
      expect(page.total).toBe(8);
      expect(page.items.map((a) => a.name)).toEqual([`${prefix}-in-trx`, `${prefix}-6`]);
      const past = await paginate(assetsNamed(trx, prefix), { skip: 50, limit: 2 });
      expect(past.total).toBe(8);
      throw new Error('roll back');
    })
    .catch((error: Error) => {
      if (error.message !== 'roll back') throw error;
    });
  expect((await paginate(assetsNamed(api.deps.db, prefix), { skip: 0, limit: 1 })).total).toBe(7);
});
