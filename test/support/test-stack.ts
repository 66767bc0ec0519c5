// The stack the API tests run against (started by global-setup.ts, stopped by global-teardown.ts).
// Both hooks run in Jest's parent process, so the handle is kept on globalThis between them.
import fs from 'node:fs';
import type { ProcessRunner } from '../../scripts/lib/process-runner.cjs';

export interface TestStackHandle {
  runner: ProcessRunner;
  tmpDir: string;
}

const KEY = '__industrialOpsTestStack__';
type WithStack = typeof globalThis & { [KEY]?: TestStackHandle };

export function rememberTestStack(handle: TestStackHandle): void {
  (globalThis as WithStack)[KEY] = handle;
}

/** Stops every process of the stack (worker first) and removes its temporary directory. */
export async function stopTestStack(): Promise<void> {
  const handle = (globalThis as WithStack)[KEY];
  if (!handle) return;
  delete (globalThis as WithStack)[KEY];
  try {
    await handle.runner.stopAll();
  } finally {
    handle.runner.uninstallSignalHandlers();
    fs.rmSync(handle.tmpDir, { recursive: true, force: true });
  }
}
