import { interleaveTenants, PlanReadingsSignals, type SeriesRef } from '../../../orchestration/plan-readings-signals';

const options = { flushMs: 10_000, inFlight: 2, waitingPerTenant: 3 };
const quietLog = () => ({ warn: jest.fn() });
const series = (...names: string[]): SeriesRef[] => names.map((name) => ({ asset_id: name.split('.')[0]!, parameter: name.split('.')[1]! }));
/** Plan `p-<asset>` watches every parameter of its asset; the lookups made are kept. */
function plansByAsset() {
  const lookups: Array<{ tenantId: string; series: string[] }> = [];
  const plansWatching = async (tenantId: string, marked: readonly SeriesRef[]) => {
    lookups.push({ tenantId, series: marked.map((s) => `${s.asset_id}.${s.parameter}`).sort() });
    return [...new Set(marked.map((s) => `p-${s.asset_id}`))];
  };
  return { lookups, plansWatching };
}

describe('the coalesced readings signals of condition and predictive plans', () => {
  it('looks the plans up once per tenant and flush, and signals each once, however many batches marked its series', async () => {
    const sent: string[] = [];
    const { lookups, plansWatching } = plansByAsset();
    const signals = new PlanReadingsSignals(plansWatching, async (tenantId, planId) => void sent.push(`${tenantId}/${planId}`), quietLog(), options);
    for (let batch = 0; batch < 20; batch++) expect(signals.mark('t1', series('a.temp', 'b.temp'))).toBe(batch === 0 ? 2 : 0);
    await signals.flush();
    expect(sent.sort()).toEqual(['t1/p-a', 't1/p-b']);
    expect(lookups).toEqual([{ tenantId: 't1', series: ['a.temp', 'b.temp'] }]);
    signals.mark('t1', series('a.vib'));
    await signals.close();
    expect(sent).toHaveLength(3);
    expect(lookups).toHaveLength(2);
  });

  it('signals nothing for series no plan watches', async () => {
    const sent: string[] = [];
    const signals = new PlanReadingsSignals(
      async () => [],
      async (_tenant, planId) => void sent.push(planId),
      quietLog(),
      options,
    );
    signals.mark('t1', series('a.temp'));
    await signals.close();
    expect(sent).toEqual([]);
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

  it('caps the series one tenant has waiting, and says so', async () => {
    const log = quietLog();
    const sent: string[] = [];
    const signals = new PlanReadingsSignals(plansByAsset().plansWatching, async (_tenant, planId) => void sent.push(planId), log, options);
    expect(signals.mark('t1', series('a.x', 'b.x', 'c.x', 'd.x', 'e.x'))).toBe(3);
    expect(signals.mark('t2', series('q.x'))).toBe(1);
    expect(log.warn).toHaveBeenCalledWith({ tenant_id: 't1', dropped: 2 }, expect.any(String));
    await signals.close();
    expect(sent.sort()).toEqual(['p-a', 'p-b', 'p-c', 'p-q']);
  });

  it('logs a plan it could not reach, or a tenant whose lookup failed, and still signals the others', async () => {
    const log = quietLog();
    const sent: string[] = [];
    const signals = new PlanReadingsSignals(
      async (tenantId, marked) => {
        if (tenantId === 't2') throw new Error('database unavailable');
        return marked.map((s) => `p-${s.asset_id}`);
      },
      async (_tenant, planId) => {
        if (planId === 'p-a') throw new Error('temporal unavailable');
        sent.push(planId);
      },
      log,
      options,
    );
    signals.mark('t1', series('a.x', 'b.x'));
    signals.mark('t2', series('c.x'));
    await signals.close();
    expect(sent).toEqual(['p-b']);
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ tenant_id: 't1', plan_id: 'p-a' }), expect.any(String));
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ tenant_id: 't2', err: expect.stringContaining('database unavailable') }), expect.any(String));
  });

  it('flushes on its own flushMs after the first mark', async () => {
    jest.useFakeTimers();
    try {
      const sent: string[] = [];
      const signals = new PlanReadingsSignals(plansByAsset().plansWatching, async (_tenant, planId) => void sent.push(planId), quietLog(), { ...options, flushMs: 200 });
      signals.mark('t1', series('a.x'));
      await jest.advanceTimersByTimeAsync(199);
      expect(sent).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(sent).toEqual(['p-a']);
      await signals.close();
    } finally {
      jest.useRealTimers();
    }
  });
});
