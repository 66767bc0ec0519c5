import { analyzePlan, type OptimizeInput } from '../../../domain/maintenance/optimize';
import type { Trigger } from '../../../domain/maintenance/types';

const NOW = '2024-12-31T00:00:00Z';
const quarterly: Trigger = { type: 'calendar', every: 3, unit: 'months', start_at: '2024-01-01T00:00:00Z', mode: 'fixed' };
const every4Weeks: Trigger = { type: 'calendar', every: 4, unit: 'weeks', start_at: '2024-01-01T00:00:00Z', mode: 'fixed' };

function input(overrides: Partial<OptimizeInput> = {}): OptimizeInput {
  return {
    now: NOW,
    plan: { id: 'plan-1', trigger: quarterly, assignee_id: 'tech-a', asset_ids: ['pump-1'], location_ids: ['hall-1'] },
    tasks: [],
    asset_events: [],
    technicians: [],
    other_plans: [],
    counter_rate_per_hour: null,
    ...overrides,
  };
}

/** n tasks due every 28 days from 2024-01-29, completed `lateHours` after due. */
function tasks(n: number, lateHours = 0) {
  return Array.from({ length: n }, (_, i) => {
    const due = Date.UTC(2024, 0, 29) + i * 28 * 86_400_000;
    return { due_at: new Date(due).toISOString(), completed_at: new Date(due + lateHours * 3_600_000).toISOString(), status: 'done' as const };
  });
}

const failures = (...dates: string[]) => dates.map((d) => ({ asset_id: 'pump-1', occurred_at: d, kind: 'failure' as const }));

describe('no suggestion without enough data', () => {
  it('an empty history yields nothing', () => {
    expect(analyzePlan(input())).toEqual({
      suggestions: [],
      basis: { window_days: 365, failures: 0, completed_tasks: 0, late_tasks: 0, counter_rate_per_hour: null },
    });
  });
  it('one failure and five clean executions are not enough either way', () => {
    expect(analyzePlan(input({ asset_events: failures('2024-06-01T00:00:00Z') })).suggestions).toEqual([]);
    expect(analyzePlan(input({ plan: { ...input().plan, trigger: every4Weeks }, tasks: tasks(5) })).suggestions).toEqual([]);
  });
  it('failures older than the 365-day window are ignored', () => {
    expect(analyzePlan(input({ asset_events: failures('2023-06-01T00:00:00Z', '2023-09-01T00:00:00Z', '2023-12-01T00:00:00Z') })).suggestions).toEqual([]);
  });
});

describe('frequency', () => {
  it('shortens to half the mean time between failures', () => {
    // 4 failures in 365 days: one every 91.25 days; half = 1095 h = 1 month (floor), plan is every 3 months
    const result = analyzePlan(input({ asset_events: failures('2024-02-01T00:00:00Z', '2024-05-01T00:00:00Z', '2024-08-01T00:00:00Z', '2024-11-01T00:00:00Z') }));
    expect(result.suggestions).toEqual([
      {
        kind: 'frequency',
        current: { every: 3, unit: 'months' },
        suggested: { every: 1, unit: 'months' },
        rationale:
          "4 failures or corrective jobs on the plan's assets in the last 365 days, one every 91.25 days on average, while the plan runs every 3 months; servicing at half the mean time between failures catches wear before the typical failure.",
        confidence: 0.6,
        patch: { trigger: { ...quarterly, every: 1 } },
      },
    ]);
    expect(result.basis.failures).toBe(4);
  });

  it('drops to a smaller unit when the interval is under one unit', () => {
    const monthly: Trigger = { ...quarterly, every: 1 } as Trigger;
    const events = failures(...Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2024, i, 15)).toISOString()));
    const s = analyzePlan(input({ plan: { ...input().plan, trigger: monthly }, asset_events: events })).suggestions[0];
    // one failure every 30.42 days -> half = 365 h -> 2 weeks; 12 failures -> confidence 0.8
    expect([s.kind, s.suggested, s.confidence]).toEqual(['frequency', { every: 2, unit: 'weeks' }, 0.8]);
  });

  it('lengthens by 25 % (at least one unit) after clean executions', () => {
    const s = analyzePlan(input({ plan: { ...input().plan, trigger: every4Weeks }, tasks: tasks(6) })).suggestions;
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ kind: 'frequency', current: { every: 4, unit: 'weeks' }, suggested: { every: 5, unit: 'weeks' }, confidence: 0.5 });
  });

  it('more clean executions, and tasks done late without failures, raise the confidence', () => {
    // grace = 10 % of 4 weeks = 67.2 h; 100 h late -> late
    const s = analyzePlan(input({ plan: { ...input().plan, trigger: every4Weeks }, tasks: tasks(12, 100) }));
    expect(s.suggestions[0].confidence).toBe(0.7);
    expect(s.suggestions[0].rationale).toContain('even though most tasks were completed late');
    expect(s.basis).toMatchObject({ completed_tasks: 12, late_tasks: 12 });
  });
});

describe('counter_threshold', () => {
  const counter: Trigger = { type: 'counter', counter: 'operating_hours', unit: 'h', every: 500, start_value: 0 };
  it('needs a rate', () => {
    expect(
      analyzePlan(input({ plan: { ...input().plan, trigger: counter }, asset_events: failures('2024-03-01T00:00:00Z', '2024-06-01T00:00:00Z', '2024-09-01T00:00:00Z') }))
        .suggestions,
    ).toEqual([]);
  });
  it('lowers the threshold to half the usage between failures', () => {
    // 3 failures: MTBF 2920 h; at 0.1 h/h = 292 h of use; half = 146 -> 140
    const s = analyzePlan(
      input({
        plan: { ...input().plan, trigger: counter },
        asset_events: failures('2024-03-01T00:00:00Z', '2024-06-01T00:00:00Z', '2024-09-01T00:00:00Z'),
        counter_rate_per_hour: 0.1,
      }),
    ).suggestions;
    expect(s).toEqual([
      expect.objectContaining({
        kind: 'counter_threshold',
        current: { every: 500, unit: 'h' },
        suggested: { every: 140, unit: 'h' },
        confidence: 0.5,
        patch: { trigger: { ...counter, every: 140 } },
      }),
    ]);
  });
  it('combined trigger whose counter never fires first: align the threshold with the calendar', () => {
    const combined: Trigger = {
      type: 'calendar_or_counter',
      calendar: { every: 1, unit: 'months', start_at: '2024-01-01T00:00:00Z', mode: 'fixed' },
      counter: { counter: 'operating_hours', unit: 'h', every: 5000, start_value: 0 },
    };
    const s = analyzePlan(input({ plan: { ...input().plan, trigger: combined }, counter_rate_per_hour: 2 })).suggestions;
    // 5000 h of use takes 2500 h > 2 x 730.485 h; 2 x 730.485 = 1460.97 -> 1400
    expect(s).toEqual([expect.objectContaining({ kind: 'counter_threshold', suggested: { every: 1400, unit: 'h' }, confidence: 0.6 })]);
    const patch = s[0].patch?.trigger;
    expect(patch?.type === 'calendar_or_counter' && patch.counter.every).toBe(1400);
  });
});

describe('workload', () => {
  it('moves the plan from an overloaded assignee to the least-loaded technician', () => {
    const techs = [
      { id: 'tech-d', open_tasks: 5 },
      { id: 'tech-a', open_tasks: 12 },
      { id: 'tech-c', open_tasks: 4 },
      { id: 'tech-b', open_tasks: 2 },
    ];
    const s = analyzePlan(input({ technicians: techs })).suggestions;
    expect(s).toEqual([
      {
        kind: 'workload',
        current: { assignee_id: 'tech-a', open_tasks: 12 },
        suggested: { assignee_id: 'tech-b', open_tasks: 2 },
        rationale: 'The assignee has 12 open tasks, at least twice the team median of 4.5; tech-b has 2.',
        confidence: 0.5,
        patch: { assignee_id: 'tech-b' },
      },
    ]);
    // deterministic whatever the input order
    expect(analyzePlan(input({ technicians: [...techs].reverse() })).suggestions).toEqual(s);
  });
  it('no suggestion when the assignee is not clearly overloaded', () => {
    expect(
      analyzePlan(
        input({
          technicians: [
            { id: 'tech-a', open_tasks: 6 },
            { id: 'tech-b', open_tasks: 5 },
            { id: 'tech-c', open_tasks: 7 },
          ],
        }),
      ).suggestions,
    ).toEqual([]);
    expect(
      analyzePlan(
        input({
          technicians: [
            { id: 'tech-a', open_tasks: 4 },
            { id: 'tech-b', open_tasks: 0 },
          ],
        }),
      ).suggestions,
    ).toEqual([]);
  });
  it('a plan without assignee gets the least-loaded technician, ties broken by id', () => {
    const s = analyzePlan(
      input({
        plan: { ...input().plan, assignee_id: null },
        technicians: [
          { id: 'tech-z', open_tasks: 1 },
          { id: 'tech-m', open_tasks: 1 },
          { id: 'tech-a', open_tasks: 3 },
        ],
      }),
    ).suggestions;
    expect(s).toEqual([expect.objectContaining({ kind: 'workload', suggested: { assignee_id: 'tech-m', open_tasks: 1 }, confidence: 0.4 })]);
  });
});

describe('route', () => {
  it('groups plans with a similar interval on the same assets or location', () => {
    const other = (id: string, trigger: Trigger, asset_ids: string[], location_ids: string[]) => ({ id, trigger, asset_ids, location_ids });
    const s = analyzePlan(
      input({
        other_plans: [
          other('plan-5', quarterly, ['fan-9'], ['hall-9']), // shares nothing
          other('plan-3', every4Weeks, ['valve-2'], ['hall-1']), // same location, interval too different
          other('plan-4', { ...quarterly, every: 3 } as Trigger, ['valve-3'], ['hall-1']), // same location
          other('plan-2', quarterly, ['pump-1', 'motor-1'], ['hall-1']), // same asset, same interval
          other('plan-6', { type: 'counter', counter: 'h', unit: 'h', every: 10, start_value: 0 }, ['pump-1'], ['hall-1']),
          other('plan-1', quarterly, ['pump-1'], ['hall-1']), // the plan itself
        ],
      }),
    ).suggestions;
    expect(s).toEqual([
      {
        kind: 'route',
        current: { plan_ids: ['plan-1'] },
        suggested: { plan_ids: ['plan-1', 'plan-2', 'plan-4'], shared_asset_ids: ['pump-1'], shared_location_ids: ['hall-1'] },
        rationale: '2 other plan(s) with a similar interval (within 25 %) service the same assets; one route on aligned due dates saves a trip per interval.',
        confidence: 0.8,
        patch: null,
      },
    ]);
  });
  it('location-only matches get a lower confidence', () => {
    const s = analyzePlan(input({ other_plans: [{ id: 'plan-7', trigger: quarterly, asset_ids: ['x'], location_ids: ['hall-1'] }] })).suggestions;
    expect(s[0]).toMatchObject({ kind: 'route', confidence: 0.4 });
  });
});
