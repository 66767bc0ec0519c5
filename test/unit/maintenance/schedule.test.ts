import {
  actionOnDue,
  calendarMilestones,
  generateAt,
  initialSchedule,
  nextDue,
  notifyAt,
  onCounterReading,
  onExecuted,
  onResume,
  onTriggerChanged,
  timerDueAt,
  type ScheduleState,
} from '../../../domain/maintenance/schedule';
import type { CalendarTrigger, CalendarOrCounterTrigger, CounterTrigger, SchedulePolicy, Trigger } from '../../../domain/maintenance/types';
import { MONTH_END_GRID_FROM_2024_01_31 } from './month-end-grid';

const monthly = (mode: 'fixed' | 'floating', start_at = '2024-01-31T00:00:00Z'): CalendarTrigger => ({
  type: 'calendar',
  every: 1,
  unit: 'months',
  start_at,
  mode,
});
const day = (s: ScheduleState) => timerDueAt(s)?.slice(0, 10);

/** Lets the due timer fire on time `count` times, executing as the system; returns the due dates seen. */
function runTimer(trigger: Trigger, state: ScheduleState, count: number): { dues: string[]; state: ScheduleState } {
  const dues: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const due = timerDueAt(state)!;
    dues.push(due.slice(0, 10));
    state = onExecuted(state, trigger, { at: due, by: 'system', trigger: 'calendar' });
  }
  return { dues, state };
}

describe('calendar fixed vs floating over a year', () => {
  it('fixed monthly from 2024-01-31 stays on the month-end grid (leap year)', () => {
    const t = monthly('fixed');
    const { dues } = runTimer(t, initialSchedule(t, '2024-01-01T00:00:00Z'), 14);
    expect(dues).toEqual(MONTH_END_GRID_FROM_2024_01_31);
  });

  it('fixed monthly from 2023-01-31 gives 2023-02-28', () => {
    const t = monthly('fixed', '2023-01-31T00:00:00Z');
    expect(runTimer(t, initialSchedule(t, '2023-01-01T00:00:00Z'), 3).dues).toEqual(['2023-01-31', '2023-02-28', '2023-03-31']);
  });

  it('floating monthly counts from each execution, so it drifts after a short month', () => {
    const t = monthly('floating');
    const { dues } = runTimer(t, initialSchedule(t, '2024-01-01T00:00:00Z'), 13);
    expect(dues).toEqual([
      '2024-01-31',
      '2024-02-29',
      '2024-03-29',
      '2024-04-29',
      '2024-05-29',
      '2024-06-29',
      '2024-07-29',
      '2024-08-29',
      '2024-09-29',
      '2024-10-29',
      '2024-11-29',
      '2024-12-29',
      '2025-01-29',
    ]);
  });

  it('weekly fixed and hourly fixed grids', () => {
    const weekly: CalendarTrigger = { type: 'calendar', every: 1, unit: 'weeks', start_at: '2024-02-26T06:00:00Z', mode: 'fixed' };
    expect(runTimer(weekly, initialSchedule(weekly, '2024-02-01T00:00:00Z'), 3).dues).toEqual(['2024-02-26', '2024-03-04', '2024-03-11']);
    const hourly: CalendarTrigger = { type: 'calendar', every: 8, unit: 'hours', start_at: '2024-02-28T16:00:00Z', mode: 'fixed' };
    const run = runTimer(hourly, initialSchedule(hourly, '2024-02-28T00:00:00Z'), 3);
    expect(run.dues).toEqual(['2024-02-28', '2024-02-29', '2024-02-29']);
    expect(timerDueAt(run.state)).toBe('2024-02-29T16:00:00.000Z');
  });
});

describe('initial schedule', () => {
  it('a future start_at is the first due date', () => {
    expect(timerDueAt(initialSchedule(monthly('fixed'), '2024-01-01T00:00:00Z'))).toBe('2024-01-31T00:00:00.000Z');
    expect(timerDueAt(initialSchedule(monthly('floating'), '2024-01-01T00:00:00Z'))).toBe('2024-01-31T00:00:00.000Z');
  });
  it('a past start_at is never fired retroactively: fixed = next grid point, floating = now + interval', () => {
    expect(timerDueAt(initialSchedule(monthly('fixed'), '2024-05-15T10:00:00Z'))).toBe('2024-05-31T00:00:00.000Z');
    expect(timerDueAt(initialSchedule(monthly('floating'), '2024-05-15T10:00:00Z'))).toBe('2024-06-15T10:00:00.000Z');
  });
  it('a start_at exactly now is due now', () => {
    expect(timerDueAt(initialSchedule(monthly('fixed'), '2024-01-31T00:00:00Z'))).toBe('2024-01-31T00:00:00.000Z');
  });
  it('is plain JSON', () => {
    const s = initialSchedule({ type: 'calendar_or_counter', calendar: monthly('fixed'), counter: { counter: 'h', unit: 'h', every: 10, start_value: 0 } }, '2024-01-01T00:00:00Z');
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

describe('executions', () => {
  it('a user execution keeps a fixed plan on its grid', () => {
    const t = monthly('fixed');
    const s = onExecuted(initialSchedule(t, '2024-01-01T00:00:00Z'), t, { at: '2024-01-20T09:00:00Z', by: 'user-7', trigger: 'calendar' });
    expect(timerDueAt(s)).toBe('2024-01-31T00:00:00.000Z');
    expect(s.last_executed_at).toBe('2024-01-20T09:00:00.000Z');
  });

  it('a user execution moves a floating plan to execution + interval', () => {
    const t = monthly('floating');
    const s = onExecuted(initialSchedule(t, '2024-01-01T00:00:00Z'), t, { at: '2024-01-20T09:00:00Z', by: 'user-7', trigger: 'calendar' });
    expect(timerDueAt(s)).toBe('2024-02-20T09:00:00.000Z');
  });

  it('generate_ahead: a task generated a week early serves that due date, the schedule does not shift', () => {
    for (const mode of ['fixed', 'floating'] as const) {
      const t = monthly(mode);
      const s = initialSchedule(t, '2024-01-01T00:00:00Z'); // due Jan 31
      const next = onExecuted(s, t, { at: generateAt('2024-01-31T00:00:00Z', 'P7D'), by: 'system', trigger: 'calendar' });
      expect(day(next)).toBe('2024-02-29');
    }
  });

  it('a timer fired late (worker down) does not produce a burst: fixed goes to the grid point after the firing', () => {
    const t: CalendarTrigger = { type: 'calendar', every: 1, unit: 'weeks', start_at: '2024-01-01T00:00:00Z', mode: 'fixed' };
    const s = onExecuted(initialSchedule(t, '2023-12-01T00:00:00Z'), t, { at: '2024-01-24T12:00:00Z', by: 'system', trigger: 'calendar' });
    expect(timerDueAt(s)).toBe('2024-01-29T00:00:00.000Z');
  });

  it('refuses a state that does not belong to the trigger', () => {
    const s = initialSchedule(monthly('fixed'), '2024-01-01T00:00:00Z');
    const counter: CounterTrigger = { type: 'counter', counter: 'h', unit: 'h', every: 10, start_value: 0 };
    expect(() => onExecuted(s, counter, { at: '2024-01-02T00:00:00Z', by: 'system', trigger: 'counter' })).toThrow(
      'schedule state of type calendar does not match a counter trigger',
    );
  });
});

describe('resume', () => {
  it('fixed: a due date in the past moves to the next grid point after now', () => {
    const t = monthly('fixed');
    const paused = initialSchedule(t, '2024-03-01T00:00:00Z'); // due Mar 31, paused across it
    const resumed = onResume(paused, t, '2024-05-10T12:00:00Z');
    expect(timerDueAt(resumed)).toBe('2024-05-31T00:00:00.000Z');
    expect(onResume(resumed, t, '2024-05-10T12:00:01Z')).toEqual(resumed); // twice is harmless
  });

  it('fixed: a resume exactly on a grid point goes to the next one', () => {
    const t = monthly('fixed');
    expect(day(onResume(initialSchedule(t, '2024-03-01T00:00:00Z'), t, '2024-04-30T00:00:00Z'))).toBe('2024-05-31');
  });

  it('floating: a due date in the past becomes now + interval', () => {
    const t = monthly('floating');
    const resumed = onResume(initialSchedule(t, '2024-03-01T00:00:00Z'), t, '2024-05-10T12:00:00Z');
    expect(timerDueAt(resumed)).toBe('2024-06-10T12:00:00.000Z');
    expect(onResume(resumed, t, '2024-05-11T00:00:00Z')).toEqual(resumed);
  });

  it('a due date still ahead (or exactly now) is kept', () => {
    const t = monthly('floating');
    const s = initialSchedule(t, '2024-01-01T00:00:00Z'); // due Jan 31
    expect(onResume(s, t, '2024-01-20T00:00:00Z')).toEqual(s);
    expect(onResume(s, t, '2024-01-31T00:00:00Z')).toEqual(s);
  });
});

describe('counter and combined triggers', () => {
  const counter: CounterTrigger = { type: 'counter', counter: 'operating_hours', unit: 'h', every: 500, start_value: 1000 };
  const combined: CalendarOrCounterTrigger = {
    type: 'calendar_or_counter',
    calendar: { every: 3, unit: 'months', start_at: '2024-01-31T00:00:00Z', mode: 'fixed' },
    counter: { counter: 'operating_hours', unit: 'h', every: 500, start_value: 1000 },
  };

  it('a counter plan has no timer; a reading of 2650 crosses 1500, 2000 and 2500 (one execution) and moves to 3000', () => {
    const s = initialSchedule(counter, '2024-01-01T00:00:00Z');
    expect(timerDueAt(s)).toBeNull();
    const r = onCounterReading(s, { value: 2650, source: 'gw-1', at: '2024-02-01T00:00:00Z' });
    expect(r.ok && [r.thresholds_crossed, r.state.type === 'counter' && r.state.counter.next_threshold]).toEqual([3, 3000]);
  });

  it('a backward reading is refused through the schedule too', () => {
    const r = onCounterReading(initialSchedule(counter, '2024-01-01T00:00:00Z'), { value: 10, source: 'gw-1', at: '2024-02-01T00:00:00Z' });
    expect(!r.ok && r.error.code).toBe('COUNTER_WENT_BACKWARDS');
    const cal = onCounterReading(initialSchedule(monthly('fixed'), '2024-01-01T00:00:00Z'), { value: 10, source: 'gw-1', at: '2024-02-01T00:00:00Z' });
    expect(!cal.ok && cal.error.message).toBe('the plan has no counter trigger');
  });

  it('combined: a counter execution re-arms both parts from it', () => {
    const s = initialSchedule(combined, '2024-01-01T00:00:00Z'); // calendar due Jan 31
    const r = onCounterReading(s, { value: 1520, source: 'gw-1', at: '2024-01-20T10:00:00Z' });
    if (!r.ok) throw new Error('rejected');
    expect(r.thresholds_crossed).toBe(1);
    const next = onExecuted(r.state, combined, { at: '2024-01-20T10:00:00Z', by: 'system', trigger: 'counter' });
    expect(next.type === 'calendar_or_counter' && [next.calendar.due_at, next.counter.next_threshold]).toEqual(['2024-04-20T10:00:00.000Z', 2020]);
  });

  it('combined: a calendar execution re-arms the counter from the last reading', () => {
    let s = initialSchedule(combined, '2024-01-01T00:00:00Z');
    const r = onCounterReading(s, { value: 1300, source: 'gw-1', at: '2024-01-20T10:00:00Z' });
    if (!r.ok) throw new Error('rejected');
    s = onExecuted(r.state, combined, { at: '2024-01-31T00:00:00Z', by: 'system', trigger: 'calendar' });
    expect(s.type === 'calendar_or_counter' && [s.calendar.due_at, s.counter.next_threshold]).toEqual(['2024-04-30T00:00:00.000Z', 1800]);
    // resume after a long pause: next point of the grid re-anchored at that execution (Jan 31 + 3k months)
    const resumed = onResume(s, combined, '2024-08-15T00:00:00Z');
    expect(timerDueAt(resumed)).toBe('2024-10-31T00:00:00.000Z');
  });

  it('nextDue: calendar, projected counter, or the earlier of both', () => {
    let s = initialSchedule(combined, '2024-01-01T00:00:00Z');
    expect(nextDue(s, '2024-01-01T00:00:00Z')).toEqual({ at: '2024-01-31T00:00:00.000Z', trigger: 'calendar', projected: false });
    for (const [at, value] of [
      ['2024-01-02T00:00:00Z', 1100],
      ['2024-01-03T00:00:00Z', 1340],
    ] as const) {
      const r = onCounterReading(s, { value, source: 'gw-1', at });
      if (!r.ok) throw new Error('rejected');
      s = r.state;
    }
    // 10 h per hour, 160 to go from Jan 3 00:00 -> Jan 3 16:00, before the calendar's Jan 31
    expect(nextDue(s, '2024-01-03T01:00:00Z')).toEqual({ at: '2024-01-03T16:00:00.000Z', trigger: 'counter', projected: true });
    expect(nextDue(initialSchedule(counter, '2024-01-01T00:00:00Z'), '2024-01-01T00:00:00Z')).toBeNull();
  });
});

describe('trigger edits', () => {
  it('an unchanged trigger keeps the state', () => {
    const t = monthly('fixed');
    const s = initialSchedule(t, '2024-01-01T00:00:00Z');
    expect(onTriggerChanged(s, t, { ...t }, '2024-01-10T00:00:00Z')).toBe(s);
  });

  it('fixed: a new step recomputes the grid from start_at and never re-serves a served due date', () => {
    const t = monthly('fixed');
    let s = initialSchedule(t, '2024-01-01T00:00:00Z'); // due Jan 31
    // generate_ahead P7D: the Jan 31 task is generated on Jan 24
    s = onExecuted(s, t, { at: '2024-01-24T00:00:00Z', by: 'system', trigger: 'calendar' });
    expect(day(s)).toBe('2024-02-29');
    // edited on Jan 25, before Jan 31: the new grid's Jan 31 was already served
    expect(day(onTriggerChanged(s, t, { ...t, every: 2 }, '2024-01-25T00:00:00Z'))).toBe('2024-03-31');
    const weekly: CalendarTrigger = { ...t, unit: 'weeks', start_at: '2024-01-29T00:00:00Z' };
    expect(day(onTriggerChanged(s, t, weekly, '2024-01-25T00:00:00Z'))).toBe('2024-02-05');
  });

  it('floating: last execution + the new interval, or now + interval when that is past', () => {
    const t = monthly('floating');
    let s = initialSchedule(t, '2024-01-01T00:00:00Z');
    s = onExecuted(s, t, { at: '2024-01-10T00:00:00Z', by: 'user-1', trigger: 'calendar' }); // due Feb 10
    expect(day(onTriggerChanged(s, t, { ...t, every: 2 }, '2024-01-15T00:00:00Z'))).toBe('2024-03-10');
    expect(timerDueAt(onTriggerChanged(s, t, { ...t, unit: 'days', every: 3 }, '2024-01-15T00:00:00Z'))).toBe('2024-01-18T00:00:00.000Z');
  });

  it('calendar to counter and back keeps last_executed_at', () => {
    const t = monthly('fixed');
    const counter: CounterTrigger = { type: 'counter', counter: 'h', unit: 'h', every: 100, start_value: 0 };
    let s = onExecuted(initialSchedule(t, '2024-01-01T00:00:00Z'), t, { at: '2024-01-31T00:00:00Z', by: 'system', trigger: 'calendar' });
    s = onTriggerChanged(s, t, counter, '2024-02-02T00:00:00Z');
    expect(s).toEqual({
      type: 'counter',
      last_executed_at: '2024-01-31T00:00:00.000Z',
      counter: { counter: 'h', every: 100, anchor: 0, next_threshold: 100, last_value: 0, last_read_at: null, total: 0, recent: [] },
    });
    expect(day(onTriggerChanged(s, counter, t, '2024-02-02T00:00:00Z'))).toBe('2024-02-29');
  });
});

describe('milestones and policies', () => {
  const policy: SchedulePolicy = {
    trigger: monthly('fixed', '2024-03-31T08:00:00Z'),
    on_open_task: 'skip',
    generate_ahead: 'P2D',
    notify: { recipients: ['user-1'], lead_time: 'P1M' },
  };
  it('generateAt / notifyAt subtract ISO durations', () => {
    expect(generateAt('2024-03-31T08:00:00Z', 'P0D')).toBe('2024-03-31T08:00:00.000Z');
    expect(generateAt('2024-03-31T08:00:00Z', 'PT12H')).toBe('2024-03-30T20:00:00.000Z');
    expect(notifyAt('2024-03-31T08:00:00Z', 'P1M')).toBe('2024-02-29T08:00:00.000Z');
    expect(() => notifyAt('2024-03-31T08:00:00Z', '1 day')).toThrow('invalid ISO 8601 duration');
  });
  it('calendarMilestones gives the timer targets', () => {
    const s = initialSchedule(policy.trigger, '2024-01-01T00:00:00Z');
    expect(calendarMilestones(s, policy)).toEqual({
      due_at: '2024-03-31T08:00:00.000Z',
      generate_at: '2024-03-29T08:00:00.000Z',
      notify_at: '2024-02-29T08:00:00.000Z',
    });
    expect(calendarMilestones(s, { ...policy, notify: null })?.notify_at).toBeNull();
  });
  it('on_open_task: skip keeps the open task, stack adds another', () => {
    expect(actionOnDue('skip', 1)).toBe('skip');
    expect(actionOnDue('skip', 0)).toBe('create_task');
    expect(actionOnDue('stack', 3)).toBe('create_task');
  });
});
