import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApi, TestApi } from '../support/api';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../dist/scripts/tenant-create.js');

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('npm run tenant:create', () => {
  it('creates a tenant and its admin, prints the ids as JSON on its last line, and the admin can log in', async () => {
    const email = `ops-${Date.now()}@acme-plant.example.com`;
    const { stdout } = await run(process.execPath, [CLI, '--name', 'Acme Plant', '--plan', 'starter', '--admin-email', email, '--admin-password', 'correct horse battery'], {
      env: { ...process.env },
    });
    const out = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(out).toEqual({ tenant_id: expect.any(String), admin_user_id: expect.any(String), slug: 'acme-plant', plan: 'starter' });
    const tenant = await api.deps.db('tenants').where({ id: out.tenant_id }).first();
    expect(tenant).toMatchObject({ name: 'Acme Plant', plan: 'starter' });
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
  });

  it('accepts exactly the addresses login accepts: an admin on a .test domain, typed with capitals and spaces, can sign in', async () => {
    const local = `ops-${Date.now()}`;
    const { stdout } = await run(
      process.execPath,
      [CLI, '--name', 'Test Plant', '--plan', 'starter', '--admin-email', ` ${local.toUpperCase()}@Plant.Test `, '--admin-password', 'correct horse battery'],
      {
        env: { ...process.env },
      },
    );
    const out = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(await api.deps.db('users').where({ id: out.admin_user_id }).first('email')).toEqual({ email: `${local}@plant.test` });
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: `${local}@plant.test`, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    // An address the shared rule refuses is refused by the CLI as well, before anything is created.
    await expect(
      run(process.execPath, [CLI, '--name', 'X', '--plan', 'free', '--admin-email', 'no-at-sign.test', '--admin-password', 'long enough pass'], { env: { ...process.env } }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--admin-email is not an email address') });
  });

  it('refuses a bad plan and a short password without creating anything', async () => {
    const before = await api.deps.db('tenants').count({ n: '*' });
    await expect(
      run(process.execPath, [CLI, '--name', 'X', '--plan', 'gold', '--admin-email', 'x@y.example.com', '--admin-password', 'long enough pass'], { env: { ...process.env } }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--plan must be one of free, starter, professional, enterprise') });
    await expect(
      run(process.execPath, [CLI, '--name', 'X', '--plan', 'free', '--admin-email', 'x@y.example.com', '--admin-password', 'short'], { env: { ...process.env } }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('at least 12 characters') });
    expect(await api.deps.db('tenants').count({ n: '*' })).toEqual(before);
  });
});
