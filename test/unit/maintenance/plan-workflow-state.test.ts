import { mergePatches } from '../../../api/routes/maintenance-optimize';
import type { Suggestion, Trigger } from '../../../domain/maintenance';
import {
  dueNow,
  initialPlanState,
  nextWake,
  overdueDeadline,
  previewOf,
  snapshotOf,
  withOverdueCheck,
  withRecent,
  RECENT_RESULTS_KEPT,
  type PlanWorkflowState,
} from '../../../workflows/maintenance-plan-state';

const NOW = new Date('2030-01-10T00:00:00.000Z');
const weekly: Trigger = { type: 'calendar', every: 1, unit: 'weeks', start_at: '2030-01-14T08:00:00.000Z', mode: 'fixed' };

function plan(overrides: Partial<PlanWorkflowState['policy']> = {}, trigger: Trigger = weekly): PlanWorkflowState {
  return initialPlanState({
    tenantId: 't',
    planId: 'p',
    version: 1,
    status: 'active',
    now: NOW,
    policy: { trigger, on_open_task: 'skip', generate_ahead: 'P0D', notify: null, ...overrides },
  });
}

describe('nextWake and dueNow', () => {
  it('wakes for the lead-time notification first, then for the generation, each once', () => {
    const state = plan({ notify: { recipients: ['u1'], lead_time: 'P1D' }, generate_ahead: 'PT2H' });
    expect(nextWake(state)).toEqual({
      at: '2030-01-13T08:00:00.000Z',
      reasons: ['notify'],
      summary: 'lead-time notification of due 2030-01-14T08:00:00.000Z at 2030-01-13T08:00:00.000Z',
    });
    const notified = { ...state, notified_due_at: '2030-01-14T08:00:00.000Z' };
    expect(nextWake(notified)).toMatchObject({ at: '2030-01-14T06:00:00.000Z', reasons: ['generate'] });
    // A late wake serves whatever has come due, and nothing before its time.
    expect([...dueNow(state, new Date('2030-01-14T07:00:00Z'))].sort()).toEqual(['generate', 'notify']);
    expect([...dueNow(state, new Date('2030-01-13T07:59:59Z'))]).toEqual([]);
  });

  it('a paused plan only wakes for overdue checks; a counter plan has no calendar wake', () => {
    const paused = { ...plan(), status: 'paused' as const, overdue_checks: ['2030-01-11T00:00:00.000Z'] };
    expect(nextWake(paused)).toMatchObject({ at: '2030-01-11T00:00:00.000Z', reasons: ['overdue_check'] });
    expect(nextWake({ ...paused, overdue_checks: [] })).toBeNull();
    expect(nextWake(plan({}, { type: 'counter', counter: 'h', unit: 'h', every: 10, start_value: 0 }))).toBeNull();
  });
});

describe('snapshot, overdue deadlines and the memory of results', () => {
  it('the snapshot is the next due time with the nominal interval', () => {
    expect(snapshotOf(plan(), NOW)).toEqual({ seq: 1, next_due_at: '2030-01-14T08:00:00.000Z', next_due_trigger: 'calendar', interval_hours: 168 });
    expect(previewOf(plan(), NOW)).toMatchObject({ due_at: '2030-01-14T08:00:00.000Z', trigger: 'calendar', projected: false, generate_at: '2030-01-14T08:00:00.000Z' });
  });

  it('an overdue deadline is due + 10 % of the interval (a day when unknown; none in replayed legacy histories); checks stay sorted and unique', () => {
    expect(overdueDeadline('2030-01-14T08:00:00.000Z', 168)).toBe('2030-01-15T00:48:00.000Z');
    expect(overdueDeadline('2030-01-14T08:00:00.000Z', null)).toBe('2030-01-15T08:00:00.000Z');
    expect(overdueDeadline('2030-01-14T08:00:00.000Z', 0)).toBe('2030-01-15T08:00:00.000Z');
    expect(overdueDeadline('2030-01-14T08:00:00.000Z', null, true)).toBe('2030-01-14T08:00:00.000Z');
    expect(overdueDeadline('2030-01-14T08:00:00.000Z', 168, true)).toBe('2030-01-15T00:48:00.000Z');
    expect(withOverdueCheck(withOverdueCheck(['2030-01-20T00:00:00.000Z'], '2030-01-15T00:00:00.000Z'), '2030-01-15T00:00:00.000Z')).toEqual([
      '2030-01-15T00:00:00.000Z',
      '2030-01-20T00:00:00.000Z',
    ]);
  });

  it('keeps the latest results only, a repeated request id once', () => {
    let recent = withRecent([], 'a', 1);
    recent = withRecent(recent, 'a', 2);
    expect(recent).toEqual([{ request_id: 'a', result: 2 }]);
    for (let i = 0; i < RECENT_RESULTS_KEPT + 5; i += 1) recent = withRecent(recent, `r${i}`, i);
    expect(recent).toHaveLength(RECENT_RESULTS_KEPT);
    expect(recent[0].request_id).toBe('r5');
  });
});

describe('mergePatches (optimize approve)', () => {
  it('merges the calendar and counter parts of a combined trigger instead of overwriting one with the other', () => {
    const combined: Trigger = {
      type: 'calendar_or_counter',
      calendar: { every: 1, unit: 'months', start_at: '2030-01-01T00:00:00.000Z', mode: 'fixed' },
      counter: { counter: 'h', unit: 'h', every: 500, start_value: 0 },
    };
    const base = { rationale: '', confidence: 0.5 };
    const suggestions: Suggestion[] = [
      {
        ...base,
        kind: 'frequency',
        current: { every: 1, unit: 'months' },
        suggested: { every: 2, unit: 'weeks' },
        patch: { trigger: { ...combined, calendar: { ...combined.calendar, every: 2, unit: 'weeks' } } },
      },
      {
        ...base,
        kind: 'counter_threshold',
        current: { every: 500, unit: 'h' },
        suggested: { every: 400, unit: 'h' },
        patch: { trigger: { ...combined, counter: { ...combined.counter, every: 400 } } },
      },
      { ...base, kind: 'workload', current: { assignee_id: null, open_tasks: null }, suggested: { assignee_id: 'tech', open_tasks: 0 }, patch: { assignee_id: 'tech' } },
    ];
    expect(mergePatches({ trigger: combined, assignee_id: null }, suggestions)).toEqual({
      trigger: { ...combined, calendar: { ...combined.calendar, every: 2, unit: 'weeks' }, counter: { ...combined.counter, every: 400 } },
      assignee_id: 'tech',
    });
  });
});
