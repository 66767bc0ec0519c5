import { interleaveTenants, PlanReadingsSignals } from '../../../orchestration/plan-readings-signals';

const options = { flushMs: 10_000, inFlight: 2, waitingPerTenant: 3 };
const quietLog = () => ({ warn: jest.fn() });

describe('the coalesced readings signals of condition and predictive plans', () => {
  it('signals each marked plan once per flush, however many batches marked it', async () => {
    const sent: string[] = [];
    const signals = new PlanReadingsSignals(async (tenantId, planId) => void sent.push(`${tenantId}/${planId}`), quietLog(), options);
    for (let batch = 0; batch < 20; batch++) signals.mark('t1', ['p1', 'p2']);
    await signals.flush();
    expect(sent.sort()).toEqual(['t1/p1', 't1/p2']);
    signals.mark('t1', ['p1']);
    await signals.close();
    expect(sent).toHaveLength(3);
  });

  it("puts one tenant's plans in turn with another's, so many plans delay nobody else", () => {
    const order = interleaveTenants(
      new Map([
        ['a', new Set(['a1', 'a2', 'a3'])],
        ['b', new Set(['b1'])],
      ]),
    );
    expect(order.map((o) => o.planId)).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('caps the plans one tenant has waiting, and says so', async () => {
    const log = quietLog();
    const sent: string[] = [];
    const signals = new PlanReadingsSignals(async (_tenant, planId) => void sent.push(planId), log, options);
    expect(signals.mark('t1', ['p1', 'p2', 'p3', 'p4', 'p5'])).toBe(3);
    expect(signals.mark('t2', ['q1'])).toBe(1);
    expect(log.warn).toHaveBeenCalledWith({ tenant_id: 't1', dropped: 2 }, expect.any(String));
    await signals.close();
    expect(sent.sort()).toEqual(['p1', 'p2', 'p3', 'q1']);
  });

  it('logs a plan it could not reach and still signals the others', async () => {
    const log = quietLog();
    const sent: string[] = [];
    const signals = new PlanReadingsSignals(
      async (_tenant, planId) => {
        if (planId === 'p1') throw new Error('temporal unavailable');
        sent.push(planId);
      },
      log,
      options,
    );
    signals.mark('t1', ['p1', 'p2']);
    await signals.close();
    expect(sent).toEqual(['p2']);
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ tenant_id: 't1', plan_id: 'p1' }), expect.any(String));
  });

  it('flushes on its own flushMs after the first mark', async () => {
    jest.useFakeTimers();
    try {
      const sent: string[] = [];
      const signals = new PlanReadingsSignals(async (_tenant, planId) => void sent.push(planId), quietLog(), { ...options, flushMs: 200 });
      signals.mark('t1', ['p1']);
      await jest.advanceTimersByTimeAsync(199);
      expect(sent).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(sent).toEqual(['p1']);
      await signals.close();
    } finally {
      jest.useRealTimers();
    }
  });
});
