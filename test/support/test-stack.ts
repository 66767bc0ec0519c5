// The stack the API tests run against (started by global-setup.ts, stopped by global-teardown.ts).
// Both hooks run in Jest's parent process, so the handle is kept on globalThis between them.

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
