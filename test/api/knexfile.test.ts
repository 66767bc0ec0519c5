/**
 * knexfile.js: the knex CLI (`npx knex migrate:status`, `migrate:make`) works against the test
 * stack's database as `npm run migrate` left it, through the owner role of DATABASE_MIGRATION_URL;
 * the commands that would apply migrations without `npm run migrate`'s steps after them refuse.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const KNEX = path.join(ROOT, 'node_modules', 'knex', 'bin', 'cli.js');
const knex = (args: string[]) => run(process.execPath, [KNEX, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });

it('migrate:status lists every migration of db/migrations as completed and none pending', async () => {
  const sources = fs.readdirSync(path.join(ROOT, 'db', 'migrations')).filter((file) => file.endsWith('.ts'));
  const { stdout } = await knex(['migrate:status']);
  expect(stdout).toContain(`Found ${sources.length} Completed Migration file/files.`);
  expect(stdout).toContain('No Pending Migration files Found.');
  expect(stdout).toContain(sources[sources.length - 1].replace(/\.ts$/, '.js'));
});

it('migrate:make writes a TypeScript migration from the project template', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'knex-make-'));
  try {
    await knex(['migrate:make', 'probe_table', '--migrations-directory', dir]);
    const files = fs.readdirSync(dir);
    expect(files).toEqual([expect.stringMatching(/^\d{14}_probe_table\.ts$/)]);
    expect(fs.readFileSync(path.join(dir, files[0]), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'db', 'migration-template.stub'), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('migrate:latest and migrate:up refuse, naming `npm run migrate`, and apply nothing', async () => {
  const before = (await knex(['migrate:status'])).stdout;
  for (const command of ['migrate:latest', 'migrate:up']) {
    const failure = (await knex([command]).then(
      () => null,
      (error: unknown) => error,
    )) as { code: number; stderr: string } | null;
    expect([command, failure?.code]).toEqual([command, 1]);
    expect(failure!.stderr).toContain('run `npm run migrate`');
  }
  expect((await knex(['migrate:status'])).stdout).toBe(before);
});
