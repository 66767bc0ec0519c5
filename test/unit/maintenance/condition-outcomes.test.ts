import { analyzePlan, conditionOutcomes, type OptimizeInput } from '../../../domain/maintenance';

const day = (d: number) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString();

describe('condition work orders in the optimizer basis', () => {
  it('counts work orders followed by a corrective job, failure or alert on the same asset within 30 days, those not followed, and those still pending', () => {
    const workOrders = [
      { asset_id: 'pump-1', created_at: day(0) }, // corrective on day 10: confirmed
      { asset_id: 'pump-1', created_at: day(40) }, // alert on another asset only, window passed: unconfirmed
      { asset_id: 'pump-2', created_at: day(50) }, // alert on day 81: after its window, unconfirmed
      { asset_id: 'pump-1', created_at: day(90) }, // nothing yet, window still open: pending
    ];
    const occurrences = [
      { asset_id: 'pump-1', occurred_at: day(10) },
      { asset_id: 'pump-2', occurred_at: day(45) }, // before its work order: not a confirmation
      { asset_id: 'pump-3', occurred_at: day(41) },
      { asset_id: 'pump-2', occurred_at: day(81) },
    ];
    expect(conditionOutcomes(workOrders, occurrences, day(100))).toEqual({ window_days: 30, confirmed: 1, unconfirmed: 2, pending: 1, false_alarm_rate: 0.67 });
    expect(conditionOutcomes([], occurrences, day(100)).false_alarm_rate).toBeNull();
  });

  it('appears in the basis of a condition plan only, counting failures and alerts', () => {
    const base: OptimizeInput = {
      now: day(100),
      plan: { id: 'p', trigger: { type: 'condition', parameter: 'vibration', above: 3.5, for_minutes: 60 }, assignee_id: null, asset_ids: ['pump-1'], location_ids: [] },
      tasks: [],
      asset_events: [{ asset_id: 'pump-1', occurred_at: day(5), kind: 'failure' }],
      technicians: [],
      other_plans: [],
      counter_rate_per_hour: null,
    };
    const withCondition = analyzePlan({
      ...base,
      condition: {
        work_orders: [
          { asset_id: 'pump-1', created_at: day(0) },
          { asset_id: 'pump-1', created_at: day(20) },
        ],
        alerts: [{ asset_id: 'pump-1', occurred_at: day(21) }],
      },
    });
    expect(withCondition.basis.condition_work_orders).toMatchObject({ confirmed: 2, unconfirmed: 0 });
    expect(analyzePlan(base).basis).not.toHaveProperty('condition_work_orders');
  });
});
