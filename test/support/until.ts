/**
 * The one polling helper of the tests. `until` polls `read` until `ok` accepts its value, and
 * returns that value; after the timeout it fails naming `what` and the last value seen. For state
 * another process changes (the worker, the dispatcher). Time-skipping tests pass `pause` (the test
 * server's `env.sleep`), so waiting moves the server's clock instead of the wall clock.
 */
export interface PollOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** How to wait between two reads; a real-time pause of `intervalMs` by default. */
  readonly pause?: () => Promise<unknown>;
}

export async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, options: number | PollOptions = {}, intervalMs?: number): Promise<T> {
  const { timeoutMs = 60_000, intervalMs: every = intervalMs ?? 100, pause } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await (pause ? pause() : new Promise((resolve) => setTimeout(resolve, every)));
  }
}

/** Polls until `probe` gives a value (not undefined, null or false) and returns it. */
export async function untilValue<T>(probe: () => Promise<T | undefined | null | false>, what = 'the condition', options: number | PollOptions = {}): Promise<T> {
  return (await until(probe, (value) => value !== undefined && value !== null && value !== false, what, options)) as T;
}

/** Retries `check` (assertions) until it passes, and returns its result; after the timeout its last error. */
export async function untilPasses<T>(check: () => Promise<T>, options: number | PollOptions = {}): Promise<T> {
  let lastError: unknown;
  const passed = await until(
    async () => {
      try {
        return { value: await check() };
      } catch (err) {
        lastError = err;
        return null;
      }
    },
    (result) => result !== null,
    'the check to pass',
    options,
  ).catch(() => {
    throw lastError;
  });
  return passed!.value;
}
