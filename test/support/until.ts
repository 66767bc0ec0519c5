/**
 * Polls `read` (real time) until `ok` accepts its value, and returns that value; after
 * `timeoutMs` fails naming `what` and the last value seen. For state another process changes
 * (the worker, the dispatcher); time-skipping tests advance the server's clock instead.
 */
export async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 60_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
