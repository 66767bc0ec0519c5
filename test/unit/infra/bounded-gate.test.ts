import { BoundedGate } from '../../../infra/bounded-gate';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('BoundedGate', () => {
  it('runs at most `concurrency` tasks, queues up to `queueLimit`, refuses the rest at once', async () => {
    const gate = new BoundedGate(2, 1);
    const release = deferred();
    let running = 0;
    let peak = 0;
    const task = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await release.promise;
      running -= 1;
      return 'done';
    };
    const results = [gate.run(task), gate.run(task), gate.run(task), gate.run(task), gate.run(task)];
    // Two run, one waits, two are refused without waiting for anything.
    expect(await results[3]).toBeNull();
    expect(await results[4]).toBeNull();
    release.resolve();
    expect(await Promise.all(results.slice(0, 3))).toEqual(['done', 'done', 'done']);
    expect(peak).toBe(2);
    // Everything drained: the gate takes new work again.
    expect(await gate.run(async () => 'again')).toBe('again');
  });

  it('frees the slot when a task throws', async () => {
    const gate = new BoundedGate(1, 0);
    await expect(gate.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.run(async () => 1)).toBe(1);
  });
});
