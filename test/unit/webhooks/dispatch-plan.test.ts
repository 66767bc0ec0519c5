import { deliveryIdFor, uuidV5 } from '../../../domain/webhooks/delivery-id';
import { OutboxEventRow, planDeliveries, ReceivingWebhook, fairShares, withinDeliveryBudget } from '../../../orchestration/webhook-dispatch';

const T1 = '00000000-0000-4000-8000-000000000001';
const T2 = '00000000-0000-4000-8000-000000000002';
const at = (iso: string) => new Date(iso);

describe('delivery ids', () => {
  it('is RFC 9562 UUIDv5 (the RFC example: www.example.com in the DNS namespace)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('is the same for the same (event, webhook) and differs otherwise', () => {
    const id = deliveryIdFor('e1', 'w1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryIdFor('e1', 'w1')).toBe(id);
    expect(new Set([id, deliveryIdFor('e1', 'w2'), deliveryIdFor('e2', 'w1'), deliveryIdFor('e1w', '1')]).size).toBe(4);
  });
});

describe('planDeliveries', () => {
  const webhook = (id: string, tenant: string, events: string[], filters = {}, created = '2025-01-01T00:00:00Z'): ReceivingWebhook => ({
    id,
    tenant_id: tenant,
    events,
    filters,
    created_at: at(created),
  });
  const event = (id: string, tenant: string, type: string, data: object = {}): OutboxEventRow => ({
    id,
    tenant_id: tenant,
    type,
    data,
    created_at: at('2025-06-01T00:00:00Z'),
  });

  it('sends each event to the subscribed webhooks of its own tenant only, filters and creation time included', () => {
    const webhooks = [
      webhook('w-all', T1, ['*']),
      webhook('w-asset', T1, ['asset.*'], { 'data.asset_id': 'a1' }),
      webhook('w-later', T1, ['*'], {}, '2025-07-01T00:00:00Z'),
      webhook('w-other-tenant', T2, ['*']),
    ];
    const plan = planDeliveries([event('e1', T1, 'asset.created', { asset_id: 'a1' }), event('e2', T1, 'asset.created', { asset_id: 'a2' })], webhooks);
    expect(plan).toEqual([
      { tenantId: T1, webhookId: 'w-all', eventId: 'e1', deliveryId: deliveryIdFor('e1', 'w-all') },
      { tenantId: T1, webhookId: 'w-asset', eventId: 'e1', deliveryId: deliveryIdFor('e1', 'w-asset') },
      { tenantId: T1, webhookId: 'w-all', eventId: 'e2', deliveryId: deliveryIdFor('e2', 'w-all') },
    ]);
  });

  it('plans nothing for a tenant without webhooks', () => {
    expect(planDeliveries([event('e1', T2, 'asset.created')], [webhook('w', T1, ['*'])])).toEqual([]);
  });
});

describe('fairShares', () => {
  const shares = (demands: number[], capacity: number) =>
    fairShares(
      demands.map((n, i) => ({ id: i, n })),
      capacity,
    ).map((d) => [d.id, d.quota]);

  it('gives every tenant an equal share and hands on what one does not need', () => {
    expect(shares([600, 3], 200)).toEqual([
      [0, 197],
      [1, 3],
    ]);
    expect(shares([600, 600], 200)).toEqual([
      [0, 100],
      [1, 100],
    ]);
    expect(shares([10, 500, 40], 200)).toEqual([
      [0, 10],
      [1, 150],
      [2, 40],
    ]);
  });

  it('never hands out more than the capacity, and at least one each while capacity lasts', () => {
    const quotas = shares(
      Array.from({ length: 300 }, () => 5),
      200,
    );
    expect(quotas).toHaveLength(200);
    expect(quotas.every(([, q]) => q === 1)).toBe(true);
    expect(shares([], 200)).toEqual([]);
    expect(shares([0, 4], 200)).toEqual([[1, 4]]);
  });
});

describe('withinDeliveryBudget', () => {
  const hook = (id: string, tenant: string): ReceivingWebhook => ({ id, tenant_id: tenant, events: ['*'], filters: {}, created_at: at('2025-01-01T00:00:00Z') });
  const evt = (id: string, tenant: string): OutboxEventRow => ({ id, tenant_id: tenant, type: 'asset.created', data: {}, created_at: at('2025-06-01T00:00:00Z') });
  // Tenant 1 fans each event out to three webhooks, tenant 2 to one.
  const webhooks = [hook('a', T1), hook('b', T1), hook('c', T1), hook('z', T2)];

  it('keeps the events whose deliveries fit, skipping a large one so a small one of another tenant behind it still goes', () => {
    const batch = [evt('e1', T1), evt('f1', T2), evt('e2', T1), evt('f2', T2), evt('e3', T1)];
    const { events, deliveries } = withinDeliveryBudget(batch, webhooks, 5);
    expect(events.map((e) => e.id)).toEqual(['e1', 'f1', 'f2']);
    expect(deliveries.map((d) => `${d.eventId}/${d.webhookId}`)).toEqual(['e1/a', 'e1/b', 'e1/c', 'f1/z', 'f2/z']);
  });

  it('always takes the first event, however many deliveries it makes', () => {
    const { events, deliveries } = withinDeliveryBudget([evt('e1', T1), evt('f1', T2)], webhooks, 2);
    expect(events.map((e) => e.id)).toEqual(['e1']);
    expect(deliveries).toHaveLength(3);
  });
});
