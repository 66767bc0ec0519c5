/**
 * Starts a test's servers at once. When one fails, those that did start are stopped before the
 * failure is rethrown: the test's afterAll never received them, and a server left running keeps
 * Jest from exiting (a failed PostgreSQL start once hung the whole run).
 */
type Stoppable = { stop(): Promise<unknown> } | { close(): Promise<unknown> };

export async function startTogether<T extends readonly Stoppable[]>(...starts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value as Stoppable] : []));
  if (!failure) return started as unknown as T;
  await Promise.all(started.map((server) => ('stop' in server ? server.stop() : server.close()).catch(() => undefined)));
  throw failure.reason;
}
