/**
 * Runs `work` over `items` with at most `concurrency` calls in flight and settles each one on its
 * own: one failure neither stops nor hides the others (the outbox dispatcher isolates items).
 */
export async function mapSettled<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<Array<PromiseSettledResult<R>>> {
  const results = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await work(items[index]) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  });
  await Promise.all(lanes);
  return results;
}
