import {
  classifyTask,
  computeCompliance,
  computePlanCompliance,
  graceDeadline,
  isDueInPeriod,
  parseCompliancePeriod,
  type ComplianceTask,
} from '../../../domain/maintenance/compliance';

// A 30-day plan: 10 % grace = 72 h. Due 2024-03-01T00:00Z, deadline 2024-03-04T00:00Z.
const base = { due_at: '2024-03-01T00:00:00Z', interval_hours: 720 } as const;
const done = (completed_at: string): ComplianceTask => ({ ...base, status: 'done', completed_at });
const open = (status: 'open' | 'in_progress' = 'open'): ComplianceTask => ({ ...base, status, completed_at: null });

describe('classifyTask: the 10 % grace boundary', () => {
  it('deadline is due + 10 % of the interval', () => {
    expect(graceDeadline(base).toISOString()).toBe('2024-03-04T00:00:00.000Z');
  });
  it('done exactly at the deadline is on time; one millisecond later is late', () => {
    expect(classifyTask(done('2024-03-04T00:00:00.000Z'), '2024-04-01T00:00:00Z')).toEqual({ kind: 'on_time' });
    expect(classifyTask(done('2024-03-04T00:00:00.001Z'), '2024-04-01T00:00:00Z')).toEqual({ kind: 'late', delay_hours: 72 + 1 / 3_600_000 });
  });
  it('done before due is on time', () => {
    expect(classifyTask(done('2024-02-27T00:00:00Z'), '2024-04-01T00:00:00Z')).toEqual({ kind: 'on_time' });
  });
  it('open at the deadline is still pending; after it, overdue with the delay from due_at to now', () => {
    expect(classifyTask(open(), '2024-03-04T00:00:00Z')).toEqual({ kind: 'pending' });
    expect(classifyTask(open('in_progress'), '2024-03-05T01:00:00Z')).toEqual({ kind: 'overdue_open', delay_hours: 97 });
  });
  it('cancelled tasks are not counted', () => {
    expect(classifyTask({ ...base, status: 'cancelled', completed_at: null }, '2024-04-01T00:00:00Z')).toEqual({ kind: 'excluded' });
  });
  it('interval 0 (unknown: counter plan before its meter rate is known) gets a day of grace', () => {
    const unknown = (completedAt: string) => ({ ...done(completedAt), interval_hours: 0 });
    expect(graceDeadline(unknown('2024-03-01T00:00:00Z')).toISOString()).toBe('2024-03-02T00:00:00.000Z');
    expect(classifyTask(unknown('2024-03-02T00:00:00Z'), '2024-04-01T00:00:00Z').kind).toBe('on_time');
    expect(classifyTask(unknown('2024-03-02T00:00:01Z'), '2024-04-01T00:00:00Z').kind).toBe('late');
    expect(classifyTask({ ...unknown('2024-03-01T00:00:00Z'), status: 'open', completed_at: null }, '2024-03-01T23:59:00Z').kind).toBe('pending');
  });
});

describe('computeCompliance', () => {
  it('counts on-time, late and open-overdue; averages the delay over the late executions only', () => {
    const tasks = [
      done('2024-03-02T00:00:00Z'), // on time
      done('2024-03-04T00:00:00Z'), // on time (boundary)
      done('2024-03-04T01:00:00Z'), // late, 73 h
      open(), // overdue at now, 97 h
      { ...open(), due_at: '2024-03-04T00:00:00Z' }, // pending (deadline Mar 7)
      { ...base, status: 'cancelled' as const, completed_at: null },
    ];
    expect(computeCompliance(tasks, '2024-03-05T01:00:00Z')).toEqual({
      compliance_rate: 50,
      on_time_count: 2,
      overdue_count: 2,
      average_delay_hours: 73, // the open overdue task (97 h) has no execution yet
      pending_count: 1,
      cancelled_count: 1,
    });
  });
  it('rounds to 2 decimals', () => {
    const m = computeCompliance([done('2024-03-02T00:00:00Z'), done('2024-03-05T00:00:00Z'), done('2024-03-06T00:20:00Z')], '2024-04-01T00:00:00Z');
    expect(m.compliance_rate).toBe(33.33);
    expect(m.average_delay_hours).toBe(108.17); // (96 + 120.333...) / 2
  });
  it('nothing due: rate and average are null', () => {
    expect(computeCompliance([], '2024-04-01T00:00:00Z')).toEqual({
      compliance_rate: null,
      on_time_count: 0,
      overdue_count: 0,
      average_delay_hours: null,
      pending_count: 0,
      cancelled_count: 0,
    });
    expect(computeCompliance([open()], '2024-03-02T00:00:00Z').compliance_rate).toBeNull();
  });
  it('all on time: 100, average delay null', () => {
    expect(computeCompliance([done('2024-03-01T00:00:00Z')], '2024-04-01T00:00:00Z')).toMatchObject({ compliance_rate: 100, average_delay_hours: null });
  });
});

describe('computePlanCompliance: SPEC.md counts plans', () => {
  const of = (plan_id: string, task: ReturnType<typeof done>) => ({ ...task, plan_id });
  it('a plan is on time when each counted task was, overdue when one was late or is open past its deadline', () => {
    const m = computePlanCompliance(
      [
        of('a', done('2024-03-02T00:00:00Z')),
        of('a', done('2024-03-03T00:00:00Z')), // a: on time
        of('b', done('2024-03-02T00:00:00Z')),
        of('b', done('2024-03-04T01:00:00Z')), // b: one late execution (73 h) → overdue
        of('c', open()), // c: open past its deadline → overdue
        of('d', { ...open(), due_at: '2024-03-04T00:00:00Z' }), // d: pending only, not counted
        of('e', { ...base, status: 'cancelled' as const, completed_at: null }), // e: cancelled only
      ],
      '2024-03-05T01:00:00Z',
    );
    expect(m).toEqual({
      compliance_rate: 33.33,
      on_time_count: 1,
      overdue_count: 2,
      average_delay_hours: 73,
      pending_count: 1,
      total_plans: 5,
      tasks: { compliance_rate: 60, on_time_count: 3, overdue_count: 2, average_delay_hours: 73, pending_count: 1, cancelled_count: 1, total: 7 },
    });
  });
  it('no plan counts: rate and average are null', () => {
    expect(computePlanCompliance([], '2024-04-01T00:00:00Z')).toMatchObject({ compliance_rate: null, average_delay_hours: null, total_plans: 0 });
  });
});

describe('parseCompliancePeriod', () => {
  it('includes both days', () => {
    const r = parseCompliancePeriod('2024-02-01', '2024-02-29');
    if (!r.ok) throw new Error(r.message);
    expect([r.period.start.toISOString(), r.period.end.toISOString()]).toEqual(['2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
    expect(isDueInPeriod('2024-02-29T23:59:59.999Z', r.period)).toBe(true);
    expect(isDueInPeriod('2024-03-01T00:00:00Z', r.period)).toBe(false);
    expect(isDueInPeriod('2024-02-01T00:00:00Z', r.period)).toBe(true);
    expect(isDueInPeriod('2024-01-31T23:59:59Z', r.period)).toBe(false);
  });
  it('a single day is a valid period', () => {
    expect(parseCompliancePeriod('2024-02-01', '2024-02-01').ok).toBe(true);
  });
  it('refuses reversed, malformed and impossible dates', () => {
    expect(parseCompliancePeriod('2024-03-01', '2024-02-01')).toEqual({ ok: false, field: 'end_date', message: 'must not be before start_date' });
    expect(parseCompliancePeriod('2024-3-1', '2024-04-01')).toEqual({ ok: false, field: 'start_date', message: 'must be a date in the form YYYY-MM-DD' });
    expect(parseCompliancePeriod('2024-02-01', '2023-02-29')).toMatchObject({ ok: false, field: 'end_date' });
    expect(parseCompliancePeriod('2024-02-01T00:00:00Z', '2024-03-01')).toMatchObject({ ok: false, field: 'start_date' });
    expect(parseCompliancePeriod(undefined, '2024-03-01')).toMatchObject({ ok: false, field: 'start_date' });
  });
});
