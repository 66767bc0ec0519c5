import type { ParkedEndpointRow } from '../../../db/queries/webhook-parking';
import { type BreakerState, closedBreaker } from '../../../domain/webhooks/circuit-breaker';
import { type ParkedEndpoint, releasable } from '../../../domain/webhooks/parking';
import { planReleases, type ReleaserSettings } from '../../../orchestration/webhook-release';

const settings: ReleaserSettings = { endpointWindow: 16, tenantWindow: 64, breaker: { failureThreshold: 5, openMs: 30_000, probeTtlMs: 30_000 } };
const t0 = new Date('2026-12-01T12:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const open = (since: Date): BreakerState => ({ state: 'open', since, consecutiveFailures: 5, probeDeliveryId: null, probeExpiresAt: null });
const endpoint = (fields: Partial<ParkedEndpoint> = {}): ParkedEndpoint => ({ receiving: true, breaker: open(t0), waiting: 100, released: 0, ...fields });

describe('releasable parked deliveries of one endpoint', () => {
  it('while the circuit is open: none during its period, then one (the probe) once no released delivery is out', () => {
    expect(releasable(endpoint(), at(29_999), settings)).toBe(0);
    expect(releasable(endpoint(), at(30_000), settings)).toBe(1);
    expect(releasable(endpoint({ released: 1 }), at(30_000), settings)).toBe(0);
    // Half open with its probe out: none until the probe's claim runs out.
    const halfOpen: BreakerState = { ...open(t0), state: 'half_open', probeDeliveryId: 'd1', probeExpiresAt: at(60_000) };
    expect(releasable(endpoint({ breaker: halfOpen }), at(59_999), settings)).toBe(0);
    expect(releasable(endpoint({ breaker: halfOpen }), at(60_000), settings)).toBe(1);
  });

  it('once closed: as many as the window has room for; a webhook that no longer receives: all, to end', () => {
    expect(releasable(endpoint({ breaker: null }), t0, settings)).toBe(16);
    expect(releasable(endpoint({ breaker: closedBreaker(t0), released: 10 }), t0, settings)).toBe(6);
    expect(releasable(endpoint({ breaker: closedBreaker(t0), released: 20 }), t0, settings)).toBe(0);
    expect(releasable(endpoint({ breaker: null, waiting: 3 }), t0, settings)).toBe(3);
    expect(releasable(endpoint({ receiving: false, waiting: 700 }), t0, settings)).toBe(700);
    expect(releasable(endpoint({ waiting: 0, breaker: null }), t0, settings)).toBe(0);
  });
});

describe('a pass of the releaser', () => {
  const row = (tenantId: string, webhookId: string, fields: Partial<ParkedEndpoint> = {}): ParkedEndpointRow => ({
    tenantId,
    webhookId,
    ...endpoint({ breaker: null, ...fields }),
  });

  it("keeps a tenant within its window, shared fairly between its endpoints, and leaves other tenants' windows alone", () => {
    const endpoints = [...Array.from({ length: 8 }, (_, i) => row('a', `a${i}`)), row('b', 'b0')];
    const plan = planReleases(endpoints, t0, settings);
    const ofTenant = (tenantId: string) => plan.filter((p) => p.tenantId === tenantId);
    expect(ofTenant('a').map((p) => p.quota)).toEqual(Array(8).fill(8));
    expect(ofTenant('b')).toEqual([{ tenantId: 'b', webhookId: 'b0', quota: 16 }]);
    // Released deliveries still out count against the window, those of an ending webhook too.
    const busy = planReleases([row('a', 'a0', { released: 16 }), row('a', 'a1', { receiving: false, released: 40, waiting: 500 })], t0, settings);
    expect(busy).toEqual([{ tenantId: 'a', webhookId: 'a1', quota: 8 }]);
  });

  it('sends at most its total, shared between the tenants', () => {
    const endpoints = Array.from({ length: 20 }, (_, i) => row(`t${i}`, `w${i}`, { receiving: false, waiting: 1_000 }));
    const plan = planReleases(endpoints, t0, settings, 500);
    expect(plan.reduce((sum, p) => sum + p.quota, 0)).toBe(500);
    expect(new Set(plan.map((p) => p.quota))).toEqual(new Set([25]));
  });
});
