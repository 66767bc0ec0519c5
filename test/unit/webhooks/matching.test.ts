import {
  filtersMatch,
  isValidEventType,
  matches,
  parseEventPattern,
  patternMatches,
  patternsMatching,
  validateEventPatterns,
  validateFilters,
} from '../../../domain/webhooks/matching';

describe('event types and patterns', () => {
  it.each(['task.created', 'maintenance.task.created', 'vibration.threshold_exceeded', 'a1.b2'])('%p is an event type', (t) => {
    expect(isValidEventType(t)).toBe(true);
  });

  it.each(['task', 'Task.created', 'task..created', '.task', 'task.', 'task.*', '1task.created', 'task.cre-ated', `a.${'b'.repeat(99)}`])('%p is not an event type', (t) => {
    expect(isValidEventType(t)).toBe(false);
  });

  it('parses exact names, prefix wildcards and "*"', () => {
    expect(parseEventPattern('*')).toEqual({ kind: 'all' });
    expect(parseEventPattern('task.created')).toEqual({ kind: 'exact', type: 'task.created' });
    expect(parseEventPattern('maintenance.*')).toEqual({ kind: 'prefix', prefix: 'maintenance' });
    expect(parseEventPattern('maintenance.task.*')).toEqual({ kind: 'prefix', prefix: 'maintenance.task' });
  });

  it.each(['', '**', '*.created', 'maintenance.*.created', 'maintenance*', 'maintenance.t*', 'maintenance', 'Maintenance.*'])('refuses pattern %p', (p) => {
    expect(parseEventPattern(p)).toBeUndefined();
  });

  it('a wildcard matches every deeper type on dot boundaries only', () => {
    expect(patternMatches('maintenance.*', 'maintenance.task.created')).toBe(true);
    expect(patternMatches('maintenance.*', 'maintenance.plan.paused')).toBe(true);
    expect(patternMatches('maintenance.*', 'maintenance_x.task')).toBe(false);
    expect(patternMatches('maintenance.*', 'maintenancex.task')).toBe(false);
    expect(patternMatches('maintenance.task.*', 'maintenance.task.created')).toBe(true);
    expect(patternMatches('maintenance.task.*', 'maintenance.task')).toBe(false);
    expect(patternMatches('maintenance.task.*', 'maintenance.plan.paused')).toBe(false);
  });

  it('an exact name matches only itself, "*" everything, an invalid pattern nothing', () => {
    expect(patternMatches('task.created', 'task.created')).toBe(true);
    expect(patternMatches('task.created', 'task.created.late')).toBe(false);
    expect(patternMatches('*', 'vibration.threshold_exceeded')).toBe(true);
    expect(patternMatches('*.created', 'task.created')).toBe(false);
  });

  it('patternsMatching lists exactly the patterns that match a type', () => {
    const type = 'maintenance.task.created';
    const patterns = patternsMatching(type);
    expect(patterns).toEqual(['*', 'maintenance.*', 'maintenance.task.*', 'maintenance.task.created']);
    expect(patterns.every((p) => patternMatches(p, type))).toBe(true);
    const others = ['maintenance.plan.*', 'maintenance.task.created.*', 'task.*', 'maintenance.task.completed'];
    expect(others.filter((p) => patternMatches(p, type))).toEqual([]);
  });

  it('validates a subscription list, naming each bad entry', () => {
    expect(validateEventPatterns(['task.created', 'maintenance.*', '*'])).toEqual([]);
    expect(validateEventPatterns(['task.created', '*.created', 7])).toEqual([
      { path: 'events[1]', message: expect.stringContaining('event type') },
      { path: 'events[2]', message: expect.stringContaining('event type') },
    ]);
    expect(validateEventPatterns([])).toEqual([{ path: 'events', message: expect.stringContaining('at least one') }]);
    expect(validateEventPatterns('task.created')).toEqual([{ path: 'events', message: expect.stringContaining('array') }]);
  });
});

describe('filters', () => {
  const event = {
    type: 'asset.alert.raised',
    data: { asset_id: 'a1', priority: 'high', level: 3, acknowledged: false, note: null, site: { id: 's9' }, tags: ['x'] },
  };

  it('a scalar must equal the field, with its type', () => {
    expect(filtersMatch({ 'data.asset_id': 'a1' }, event)).toBe(true);
    expect(filtersMatch({ 'data.asset_id': 'a2' }, event)).toBe(false);
    expect(filtersMatch({ 'data.level': 3 }, event)).toBe(true);
    expect(filtersMatch({ 'data.level': '3' }, event)).toBe(false);
    expect(filtersMatch({ 'data.acknowledged': false }, event)).toBe(true);
    expect(filtersMatch({ 'data.note': null }, event)).toBe(true);
  });

  it('an array lists the allowed values', () => {
    expect(filtersMatch({ 'data.priority': ['high', 'urgent'] }, event)).toBe(true);
    expect(filtersMatch({ 'data.priority': ['low', 'medium'] }, event)).toBe(false);
  });

  it('all conditions must hold; none is always true', () => {
    expect(filtersMatch({ 'data.asset_id': 'a1', 'data.priority': ['high'] }, event)).toBe(true);
    expect(filtersMatch({ 'data.asset_id': 'a1', 'data.priority': ['low'] }, event)).toBe(false);
    expect(filtersMatch({}, event)).toBe(true);
  });

  it('dotted paths reach nested fields; missing and non-scalar fields never match', () => {
    expect(filtersMatch({ 'data.site.id': 's9' }, event)).toBe(true);
    expect(filtersMatch({ 'data.site.name': null }, event)).toBe(false);
    expect(filtersMatch({ 'data.missing': null }, event)).toBe(false);
    expect(filtersMatch({ 'data.tags': 'x' }, event)).toBe(false);
    expect(filtersMatch({ 'data.site': 's9' }, event)).toBe(false);
  });

  it('never walks into the prototype', () => {
    expect(filtersMatch({ 'data.constructor.name': 'Object' }, event)).toBe(false);
    expect(filtersMatch({ 'data.__proto__': null }, event)).toBe(false);
  });

  it('validation accepts scalars and non-empty arrays of scalars under data', () => {
    expect(validateFilters({ 'data.asset_id': 'a1', 'data.priority': ['high', 'urgent'], 'data.n': 1, 'data.b': true })).toEqual([]);
  });

  it('validation names each bad condition', () => {
    expect(
      validateFilters({
        asset_id: 'a1',
        'data.priority': [],
        'data.obj': { a: 1 },
        'data.list': ['a', ['b']],
        'data.n': Number.NaN,
      }),
    ).toEqual([
      { path: 'filters.asset_id', message: expect.stringContaining('dotted path') },
      { path: 'filters.data.priority', message: expect.stringContaining('from 1 to 100') },
      { path: 'filters.data.obj', message: expect.any(String) },
      { path: 'filters.data.list', message: expect.any(String) },
      { path: 'filters.data.n', message: expect.any(String) },
    ]);
    expect(validateFilters(['data.a'])).toEqual([{ path: 'filters', message: expect.any(String) }]);
  });
});

describe('matches', () => {
  const taskCreated = { type: 'task.created', data: { task_id: 't1', priority: 'urgent' } };

  it('needs a matching pattern and passing filters', () => {
    expect(matches({ events: ['task.*'], filters: {} }, taskCreated)).toBe(true);
    expect(matches({ events: ['task.created'], filters: { 'data.priority': ['high', 'urgent'] } }, taskCreated)).toBe(true);
    expect(matches({ events: ['task.*'], filters: { 'data.priority': 'low' } }, taskCreated)).toBe(false);
    expect(matches({ events: ['asset.*', 'task.completed'], filters: {} }, taskCreated)).toBe(false);
    expect(matches({ events: [], filters: {} }, taskCreated)).toBe(false);
  });

  it('an event answers to its former names: maintenance.task.* subscriptions still receive task events', () => {
    for (const events of [['maintenance.task.created'], ['maintenance.task.*'], ['maintenance.*']]) {
      expect(matches({ events, filters: {} }, taskCreated)).toBe(true);
    }
    expect(matches({ events: ['maintenance.task.completed'], filters: {} }, taskCreated)).toBe(false);
    expect(matches({ events: ['maintenance.plan.*'], filters: {} }, taskCreated)).toBe(false);
    const patterns = patternsMatching('task.created');
    expect(patterns).toEqual(['*', 'task.*', 'task.created', 'maintenance.*', 'maintenance.task.*', 'maintenance.task.created']);
  });
});
