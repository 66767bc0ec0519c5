/**
 * `read`, remembered for `ttlMs`: however often the answer is asked for, `read` runs at most once
 * per period (the pending promise is shared, so concurrent callers wait for one read).
 */
export function cachedFor<T>(ttlMs: number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= ttlMs) last = { at: now, value: read() };
    return last.value;
  };
}
