/**
 * The outbox dispatcher sleeps until the next claim or retry falls due, at most its fallback poll
 * (workers/webhook-dispatcher.ts). The loop itself, against PostgreSQL and Temporal:
 * test/workflows/outbox-dispatch.test.ts, "the dispatcher loop".
 */
import { nextWakeMs } from '../../../workers/webhook-dispatcher';

describe('nextWakeMs', () => {
  it('sleeps until the next claim or retry falls due, never longer than the fallback poll', () => {
    expect(nextWakeMs(2_000, null)).toBe(2_000); // nothing waits for a time
    expect(nextWakeMs(2_000, 700)).toBe(720);
    expect(nextWakeMs(2_000, 0)).toBe(20);
    expect(nextWakeMs(2_000, -50)).toBe(20); // already due by the database's clock
    expect(nextWakeMs(2_000, 30_000)).toBe(2_000);
  });
});
