/**
 * Requests in flight, capped per key and overall, refused at once beyond either (no queue): what
 * bounds the bodies an API process buffers for anonymous callers. Per process, in memory: a key's
 * counter is dropped when its last request ends, so the map holds only keys in flight.
 */
export class InFlightCaps {
  private total = 0;
  private readonly byKey = new Map<string, number>();

  constructor(
    private readonly perKey: number,
    private readonly overall: number,
  ) {}

  /** A slot for `key` (null: only the overall cap applies), and its release (call it once); or which cap refused it. */
  enter(key: string | null): { release: () => void } | { refused: 'key' | 'overall' } {
    const held = key === null ? 0 : (this.byKey.get(key) ?? 0);
    if (held >= this.perKey) return { refused: 'key' };
    if (this.total >= this.overall) return { refused: 'overall' };
    if (key !== null) this.byKey.set(key, held + 1);
    this.total += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        if (key === null) return;
        const left = (this.byKey.get(key) ?? 1) - 1;
        if (left > 0) this.byKey.set(key, left);
        else this.byKey.delete(key);
      },
    };
  }
}
