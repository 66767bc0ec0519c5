// The stack the API tests run against (started by global-setup.ts, stopped by global-teardown.ts).
// Both hooks run in Jest's parent process, so the handle is kept on globalThis between them.
import fs from 'node:fs';
import path from 'node:path';

export interface TestStackHandle {
  stop(): Promise<void>;
}

const KEY = '__industrialOpsTestStack__';
type WithStack = typeof globalThis & { [KEY]?: TestStackHandle };

export function rememberTestStack(handle: TestStackHandle): void {
  (globalThis as WithStack)[KEY] = handle;
}

/** Stops every process of the stack (newest first) and removes its temporary directory. */
export async function stopTestStack(): Promise<void> {
  const handle = (globalThis as WithStack)[KEY];
  if (!handle) return;
  delete (globalThis as WithStack)[KEY];
  await handle.stop();
}

/** The pids of the running stack's processes by name (`worker`, `temporal`, ...), from the description global-setup.ts wrote. */
export function stackPids(): Record<string, number> {
  const runDir = path.resolve(__dirname, '..', '..', process.env.TEST_STACK_RUN_DIR ?? '.run');
  return (JSON.parse(fs.readFileSync(path.join(runDir, 'test-stack.json'), 'utf8')) as { pids: Record<string, number> }).pids;
}
