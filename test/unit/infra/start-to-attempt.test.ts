/**
 * A worker process's start-to-attempt times (infra/start-to-attempt.ts): what the dispatcher reads
 * to keep a short task timeout off a starved worker.
 */
import { StartToAttemptTimes } from '../../../infra/start-to-attempt';

function clocked() {
  let now = 0;
  const times = new StartToAttemptTimes(() => now);
  const run = (deliveryId: string, ms: number) => {
    times.started(deliveryId);
    now += ms;
    times.attemptBegins(deliveryId);
  };
  return { times, run, advance: (ms: number) => (now += ms) };
}

describe('StartToAttemptTimes', () => {
  it('knows nothing until a delivery started here begins its first attempt here', () => {
    const { times, advance } = clocked();
    expect(times.slowestRecentMs()).toBeUndefined();
    times.started('a');
    advance(700);
    expect(times.slowestRecentMs()).toBeUndefined(); // started, not yet attempted
    times.attemptBegins('started-elsewhere');
    expect(times.slowestRecentMs()).toBeUndefined();
    times.attemptBegins('a');
    expect(times.slowestRecentMs()).toBe(700);
  });

  it('counts a delivery once: a repeated first attempt (the SDK retrying it) adds nothing', () => {
    const { times, run, advance } = clocked();
    run('a', 30);
    advance(5_000);
    times.attemptBegins('a');
    expect(times.slowestRecentMs()).toBe(30);
  });

  it('gives the slowest of the latest 32, so a starved spell is forgotten once 32 fast ones follow it', () => {
    const { times, run } = clocked();
    run('slow', 1_600);
    for (let i = 0; i < 31; i++) run(`fast-${i}`, 20);
    expect(times.slowestRecentMs()).toBe(1_600);
    run('fast-31', 25);
    expect(times.slowestRecentMs()).toBe(25);
  });
});
