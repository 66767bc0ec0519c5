/**
 * A throwaway PostgreSQL with every migration applied, for workflow tests whose activities use the
 * real database (the API tests get theirs from global-setup.ts instead).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import runnerLib = require('../../scripts/lib/process-runner.cjs');
import services = require('../../scripts/lib/services.cjs');
import { createDb, Db } from '../../db/knex';

export interface TestPostgres {
  databaseUrl: string;
  db: Db;
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-wf-'));
  fs.chmodSync(tmpDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its data dir
  const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 5_000 });
  try {
    const pg = await services.startPostgres({
      runner,
      dataDir: path.join(tmpDir, 'postgres'),
      port: await services.getFreePort(),
      password: randomBytes(18).toString('base64url'),
      persistent: false,
      echo: false,
    });
    const db = createDb(pg.databaseUrl, { min: 0, max: 10 });
    await db.migrate.latest();
    return {
      databaseUrl: pg.databaseUrl,
      db,
      async stop() {
        await db.destroy();
        await runner.stopAll();
        fs.rmSync(tmpDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await runner.stopAll();
    fs.rmSync(tmpDir, { recursive: true, force: true });
    throw error;
  }
}
