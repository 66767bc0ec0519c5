import { assetKeyOf, machineAgentReply, MachineAgentTrigger, NO_ASSET, planMachineAgentSignals, TriggeringEvent } from '../../../domain/agents/machine-agent';

const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';
const ASSET = 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA';
const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 8, minute));

const agent = (id: string, tenant: string, types: string[], createdMinute = 0): MachineAgentTrigger => ({
  id,
  tenant_id: tenant,
  trigger_config: { event_types: types, cooldown_minutes: 30 },
  created_at: at(createdMinute),
});
const event = (id: string, tenant: string, type: string, data: unknown, minute = 10): TriggeringEvent => ({ id, tenant_id: tenant, type, data, created_at: at(minute) });

describe('assetKeyOf', () => {
  it('is the lower-cased asset_id when it is a UUID, else NO_ASSET', () => {
    expect(assetKeyOf({ asset_id: ASSET })).toBe(ASSET.toLowerCase());
    expect(assetKeyOf({ asset_id: 'pump-1' })).toBe(NO_ASSET);
    expect(assetKeyOf({})).toBe(NO_ASSET);
    expect(assetKeyOf(null)).toBe(NO_ASSET);
    expect(assetKeyOf([ASSET])).toBe(NO_ASSET);
  });
});

describe('planMachineAgentSignals', () => {
  it('sends each event to the agents of its tenant that list its type and existed before it', () => {
    const agents = [
      agent('a1', T1, ['vibration.threshold_exceeded', 'alert.raised']),
      agent('a2', T1, ['alert.raised']),
      agent('a3', T2, ['vibration.threshold_exceeded']),
      agent('late', T1, ['vibration.threshold_exceeded'], 20),
    ];
    const events = [
      event('e1', T1, 'vibration.threshold_exceeded', { asset_id: ASSET }),
      event('e2', T1, 'alert.raised', {}),
      event('e3', T1, 'asset.created', { asset_id: ASSET }),
      event('e4', T1, 'vibration.threshold_exceeded', {}, 25),
    ];
    expect(planMachineAgentSignals(events, agents)).toEqual([
      { tenantId: T1, agentId: 'a1', assetKey: ASSET.toLowerCase(), eventId: 'e1' },
      { tenantId: T1, agentId: 'a1', assetKey: NO_ASSET, eventId: 'e2' },
      { tenantId: T1, agentId: 'a2', assetKey: NO_ASSET, eventId: 'e2' },
      { tenantId: T1, agentId: 'a1', assetKey: NO_ASSET, eventId: 'e4' },
      { tenantId: T1, agentId: 'late', assetKey: NO_ASSET, eventId: 'e4' },
    ]);
  });

  it('an agent listing a former name (maintenance.task.created) is triggered by task.created', () => {
    const agents = [agent('old', T1, ['maintenance.task.created']), agent('new', T1, ['task.created']), agent('other', T1, ['task.completed'])];
    expect(planMachineAgentSignals([event('e1', T1, 'task.created', { task_id: 't' })], agents).map((s) => s.agentId)).toEqual(['old', 'new']);
  });
});

describe('machineAgentReply', () => {
  it('quotes numbers, booleans and short ids of the event, never free text', () => {
    const text = machineAgentReply({
      agentName: 'Watcher',
      eventType: 'vibration.threshold_exceeded',
      assetKey: ASSET,
      data: { asset_id: ASSET, rms: 7.5, confirmed: true, sensor: 'acc-3', note: 'call Ana at ana@example.com', nested: { a: 1 } },
      notified: false,
    });
    expect(text).toBe(
      `[built-in engine] Event vibration.threshold_exceeded on asset ${ASSET} (confirmed=true, rms=7.5, sensor=acc-3). Agent "Watcher" recorded the event (no administrator to notify); further events of this asset wait for the cooldown.`,
    );
  });
});
