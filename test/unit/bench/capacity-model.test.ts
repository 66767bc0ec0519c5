import fs from 'node:fs';
import {
  ASSUMPTIONS,
  capacitySection,
  formatFigure,
  LINES,
  SCENARIOS,
  sectionOf,
  withSection,
  type Assumptions,
  type CapacityInputs,
  type Scenario,
  type UnitCost,
} from '../../../bench/capacity-model';
import { DOCUMENT, readCapacityInputs } from '../../../bench/capacity-document';
import { counterSum, isWriteOperation } from '../../../bench/server-metrics';

const cost = (over: Partial<UnitCost> = {}): UnitCost => ({
  count: 100,
  workerCpuMs: 0,
  apiCpuMs: 0,
  temporalCpuMs: 0,
  postgresCpuMs: 0,
  temporalActions: 0,
  historyEvents: 0,
  historyBytes: 0,
  persistenceRequests: 0,
  persistenceWrites: 0,
  sqlStatements: 0,
  sqlRows: 0,
  walBytes: 0,
  databaseBytes: 0,
  objectBytes: 0,
  ...over,
});

const inputs: CapacityInputs = {
  measured: 'by hand',
  units: {
    duePlan: cost({ workerCpuMs: 20, temporalActions: 3, persistenceWrites: 6, temporalCpuMs: 10, sqlStatements: 8, databaseBytes: 2048 }),
    delivery: cost({ workerCpuMs: 5, temporalActions: 2, persistenceWrites: 4, temporalCpuMs: 4, sqlStatements: 6, databaseBytes: 1024 }),
    reading: cost({ workerCpuMs: 0.1, apiCpuMs: 0.05, temporalActions: 0.01, persistenceWrites: 0.02, temporalCpuMs: 0.01, sqlStatements: 0.02, databaseBytes: 200 }),
    exportRow: cost({ workerCpuMs: 0.01, sqlStatements: 0.001, objectBytes: 100 }),
  },
};
// A day of exactly 86 400 of each, so each rate is 1 a second (readings and deliveries times k).
const day: Scenario = { name: 'one a second', tenants: 1, plansDuePerDay: 86_400, deliveriesPerDay: 86_400, readingsPerDay: 86_400, exportsPerDay: 8.64 };
const assume: Assumptions = {
  ...ASSUMPTIONS,
  peakToAverage: 2,
  burstShareOfDailyPlans: 0.5,
  stickyDrainSeconds: 10,
  coresPerProcess: 1,
  targetUtilisation: 0.5,
  rowsPerExport: 10_000,
  historyShards: 4,
};
const line = (label: string) => {
  const found = LINES.find((l) => l.label === label);
  if (!found) throw new Error(`no line ${label}`);
  return found.compute(day, inputs.units, assume);
};

describe('the capacity model', () => {
  it('sizes the workers from CPU per unit at the busiest hour', () => {
    // 1 plan/s × 20 + 2 deliveries/s × 5 + 2 readings/s × 0.1 + 1 row/s × 0.01 = 30.21 ms a second, at u = 0.5.
    expect(line('worker cores, busiest hour')).toBeCloseTo(0.06042, 5);
    expect(line('worker processes, busiest hour')).toBe(2);
    expect(line('API cores for the readings, busiest hour')).toBeCloseTo((2 * 0.05) / 1000 / 0.5, 8);
  });

  it("sizes the burst so that each worker's share drains within the sticky timeout", () => {
    // 43 200 plans at once; one worker drains 1000 / 20 = 50 a second, 500 in 10 s.
    expect(line('plans due at one instant (burst)')).toBe(43_200);
    expect(line('worker processes for the burst')).toBe(Math.ceil(43_200 / 500));
    expect(line('actions a second, burst in the sticky timeout')).toBe(4_320 * 3);
    expect(line('persistence writes a second per shard, burst')).toBe((4_320 * 6) / 4);
  });

  it('adds Temporal and PostgreSQL work over the units', () => {
    expect(line('actions a second, busiest hour')).toBeCloseTo(1 * 3 + 2 * 2 + 2 * 0.01, 8);
    expect(line('actions a day')).toBeCloseTo((86_400 * (3 + 2 + 0.01)) / 1e6, 8);
    expect(line('statements a second, busiest hour')).toBeCloseTo(8 + 12 + 0.04 + 0.001, 8);
    expect(line('server cores, burst (dev server: a floor)')).toBeCloseTo((4_320 * 10) / 1000 / 0.5, 8);
  });

  it('sizes storage from bytes per unit, retention and a year of work orders and exports', () => {
    const gib = 1024 ** 3;
    expect(line('database growth a day')).toBeCloseTo((86_400 * (2048 + 1024 + 200)) / gib, 8);
    expect(line('database held by retention')).toBeCloseTo((86_400 * 200 * 90 + 86_400 * 1024 * 30) / gib, 8);
    expect(line('a year of due plans (the work order and the rows beside it)')).toBeCloseTo((86_400 * 2048 * 365) / gib, 8);
    expect(line('export archives, a year')).toBeCloseTo((8.64 * 10_000 * 100 * 365) / gib, 8);
  });

  it('says "not measured" where an input is missing, never a number', () => {
    const unmeasured = { ...inputs, units: { ...inputs.units, delivery: cost({ temporalActions: null, persistenceWrites: null, temporalCpuMs: null }) } };
    const table = capacitySection(unmeasured, [day], assume);
    expect(table).toMatch(/\| temporal \| actions a second, busiest hour \| not measured \|/);
    expect(table).toMatch(/\| workers \| worker cores, busiest hour \| [0-9.]+ cores \|/);
  });

  it('prints three significant digits with spaced thousands', () => {
    expect(formatFigure(1234567)).toBe('1 230 000');
    expect(formatFigure(0.012345)).toBe('0.0123');
    expect(formatFigure(12.345)).toBe('12.3');
    expect(formatFigure(0)).toBe('0');
    expect(formatFigure(null)).toBe('not measured');
  });

  it('sizes 10 000 tenants as 1 M plans and 10 M deliveries a day', () => {
    const large = SCENARIOS.find((s) => s.tenants === 10_000)!;
    expect(large.plansDuePerDay).toBe(1_000_000);
    expect(large.deliveriesPerDay).toBe(10_000_000);
  });

  it('replaces only the part between the markers', () => {
    const doc = withSection('# T\n\nbefore\n<!-- capacity:begin (npm run bench -- capacity writes this part) -->\nold\n<!-- capacity:end -->\nafter\n', 'new');
    expect(doc).toBe('# T\n\nbefore\n<!-- capacity:begin (npm run bench -- capacity writes this part) -->\n\nnew\n\n<!-- capacity:end -->\nafter\n');
    expect(() => withSection('# no markers', 'x')).toThrow(/no <!-- capacity:begin/);
  });

  // When the model changes: `npm run build && node dist/bench/capacity-document.js` rewrites the tables.
  it("holds docs/CAPACITY.md's tables to the committed inputs: the document is what the model computes", () => {
    expect(sectionOf(fs.readFileSync(DOCUMENT, 'utf8'))).toBe(capacitySection(readCapacityInputs()));
  });
});

describe("the Temporal server's counters", () => {
  const text = [
    '# HELP action',
    'action{action_type="grpc_StartWorkflowExecution",namespace="default",service_name="frontend"} 3',
    'action{action_type="command_StartTimer",namespace="default",service_name="history"} 2',
    'action{action_type="grpc_StartWorkflowExecution",namespace="temporal_system",service_name="frontend"} 7',
    'actions_other{namespace="default"} 100',
    'persistence_requests{operation="UpdateWorkflowExecution"} 5',
    'persistence_requests{operation="GetWorkflowExecution"} 9',
    'persistence_requests{operation="AppendHistoryNodes"} 4 1700000000000',
    'plain_counter 11',
  ].join('\n');

  it('sums a counter over the samples whose labels pass', () => {
    expect(counterSum(text, 'action', (l) => l.namespace === 'default')).toBe(5);
    expect(counterSum(text, 'action')).toBe(12);
    expect(counterSum(text, 'persistence_requests', (l) => isWriteOperation(l.operation))).toBe(9);
    expect(counterSum(text, 'plain_counter')).toBe(11);
    expect(counterSum(text, 'absent')).toBeNull();
  });

  it('tells reads from writes by the operation', () => {
    for (const op of ['CreateWorkflowExecution', 'UpdateWorkflowExecution', 'AppendHistoryNodes', 'CompleteTasks', 'RangeCompleteHistoryTasks', 'UpdateShard', 'CreateTasks'])
      expect(isWriteOperation(op)).toBe(true);
    for (const op of ['GetWorkflowExecution', 'ListConcreteExecutions', 'ReadHistoryBranch', 'GetTasks', 'AssertShardOwnership', 'WatchNamespaces'])
      expect(isWriteOperation(op)).toBe(false);
  });
});
