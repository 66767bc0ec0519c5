import { LEASE_RENEW_EVERY_MS, LEASE_TTL_MS, LeaseRenewal } from '../../../infra/lease-renewal';
import { DEFAULT_TIMEOUT_MS } from '../../../infra/outbound/safe-http';

describe('LeaseRenewal', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('renews every lease the process holds in one call per interval, until each is released', async () => {
    const calls: string[][] = [];
    const renewal = new LeaseRenewal(async (ids) => void calls.push([...ids].sort()), 1_000);
    renewal.granted('a');
    renewal.granted('b');
    jest.advanceTimersByTime(1_000);
    renewal.released('a');
    jest.advanceTimersByTime(1_000);
    expect(calls).toEqual([['a', 'b'], ['b']]);
    renewal.released('b');
    jest.advanceTimersByTime(5_000);
    expect(calls).toHaveLength(2); // nothing held: no statement
    expect(renewal.holding()).toBe(0);
  });

  it('keeps going after a failed renewal (the next interval tries again)', async () => {
    const errors: Error[] = [];
    let calls = 0;
    const renewal = new LeaseRenewal(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
      },
      1_000,
      (e) => errors.push(e),
    );
    renewal.granted('a');
    await jest.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(2);
    expect(errors.map((e) => e.message)).toEqual(['database down']);
    renewal.released('a');
  });

  it("frees a dead worker's slots within a few seconds, well before an attempt's own deadline, with renewals to spare", () => {
    expect(LEASE_TTL_MS).toBeGreaterThanOrEqual(3 * LEASE_RENEW_EVERY_MS);
    expect(LEASE_TTL_MS).toBeLessThan(DEFAULT_TIMEOUT_MS);
  });
});
