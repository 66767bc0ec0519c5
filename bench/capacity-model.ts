/**
 * The capacity model of docs/CAPACITY.md: per-unit costs measured by `npm run bench -- capacity`
 * (bench/capacity.ts, kept in bench/capacity-inputs.json) times a workload gives the size of each
 * part. Pure arithmetic: each line carries its formula as text beside the function that computes
 * it, so the document's formula column and its figures cannot part.
 */

/** The units of work the bench measures. */
export const UNITS = ['duePlan', 'delivery', 'reading', 'exportRow'] as const;
export type Unit = (typeof UNITS)[number];

export const UNIT_LABELS: Record<Unit, string> = {
  duePlan: 'due plan (one occurrence: timer, work order)',
  delivery: 'webhook delivery (outbox append to first attempt, closed)',
  reading: 'reading ingested (gateway batch of 500, pump watched by 2 plans)',
  exportRow: 'exported row (subject export, ZIP in object storage)',
};

/**
 * What one unit cost, averaged over `count` of them, each part's idle rate taken off. A figure the
 * bench could not measure (no dev server's counters on an operator's cluster) is null.
 */
export interface UnitCost {
  count: number;
  /** CPU of the service workers' processes. */
  workerCpuMs: number;
  /** CPU of the API process (the readings' gateway; 0 where the unit does not pass through the API). */
  apiCpuMs: number;
  /** CPU of the Temporal dev server (frontend, history, matching in one process, SQLite in memory). */
  temporalCpuMs: number | null;
  /** CPU of PostgreSQL (the postmaster and its backends). */
  postgresCpuMs: number;
  /** Temporal Cloud's billable actions, as the server's `action` counter counts them. */
  temporalActions: number | null;
  historyEvents: number;
  /** The history events' bytes as the server stores them (protobuf). */
  historyBytes: number;
  /** Requests of the Temporal server to its persistence, and those that write. */
  persistenceRequests: number | null;
  persistenceWrites: number | null;
  /** The service's statements (pg_stat_statements, the app's role: BEGIN and COMMIT count). */
  sqlStatements: number;
  /** Rows those statements returned or changed. */
  sqlRows: number;
  /** WAL those statements wrote. */
  walBytes: number;
  /** Growth of the database (tables and indexes). */
  databaseBytes: number;
  /** Bytes written to object storage. */
  objectBytes: number;
}

export interface CapacityInputs {
  /** When and where they were measured: the figures are only as good as that machine. */
  measured: string;
  units: Record<Unit, UnitCost>;
}

/** A day's work: what the document sizes for. */
export interface Scenario {
  name: string;
  tenants: number;
  plansDuePerDay: number;
  deliveriesPerDay: number;
  readingsPerDay: number;
  exportsPerDay: number;
}

/** What the model assumes and does not measure; each is named in the document. */
export interface Assumptions {
  /** Busiest hour's rate against the day's average, for deliveries and readings. */
  peakToAverage: number;
  /** The share of a day's plans due at one instant (calendar plans at midnight). */
  burstShareOfDailyPlans: number;
  /** The sticky queue's schedule-to-start timeout: a worker's share of a burst must drain within it. */
  stickyDrainSeconds: number;
  /** CPU cores one worker (or API) process gets, and the share of them a size leaves busy. */
  coresPerProcess: number;
  targetUtilisation: number;
  rowsPerExport: number;
  retentionDays: { readings: number; deliveries: number };
  historyShards: number;
}

export const SECONDS_PER_DAY = 86_400;

/** A figure the model could not compute (an input was not measured). */
export type Figure = number | null;

export interface Line {
  part: 'workers' | 'temporal' | 'postgres' | 'storage';
  label: string;
  /** The formula in words and symbols, as the document prints it. */
  formula: string;
  unit: string;
  compute: (s: Scenario, c: CapacityInputs['units'], a: Assumptions) => Figure;
}

/** Units a second at the busiest hour (plans: their day's average; a burst is its own line). */
function peakRates(s: Scenario, a: Assumptions): Record<Unit, number> {
  return {
    duePlan: s.plansDuePerDay / SECONDS_PER_DAY,
    delivery: (s.deliveriesPerDay / SECONDS_PER_DAY) * a.peakToAverage,
    reading: (s.readingsPerDay / SECONDS_PER_DAY) * a.peakToAverage,
    exportRow: (s.exportsPerDay * a.rowsPerExport) / SECONDS_PER_DAY,
  };
}

/** Σ over the units of rate × a per-unit figure; null when a unit's figure was not measured. */
function perSecond(s: Scenario, c: CapacityInputs['units'], a: Assumptions, figure: (u: UnitCost) => number | null): Figure {
  const rates = peakRates(s, a);
  let total = 0;
  for (const unit of UNITS) {
    const value = figure(c[unit]);
    if (value === null) return null;
    total += rates[unit] * value;
  }
  return total;
}

/** Units in one day times a per-unit figure, summed. */
function perDay(s: Scenario, c: CapacityInputs['units'], a: Assumptions, figure: (u: UnitCost) => number): number {
  const daily: Record<Unit, number> = { duePlan: s.plansDuePerDay, delivery: s.deliveriesPerDay, reading: s.readingsPerDay, exportRow: s.exportsPerDay * a.rowsPerExport };
  return UNITS.reduce((total, unit) => total + daily[unit] * figure(c[unit]), 0);
}

const burstPlans = (s: Scenario, a: Assumptions) => s.plansDuePerDay * a.burstShareOfDailyPlans;
const cores = (msPerSecond: Figure, a: Assumptions): Figure => (msPerSecond === null ? null : msPerSecond / 1000 / a.targetUtilisation);
/** Due plans a second one worker process drains when its CPU is what bounds it. */
const drainPerWorker = (c: CapacityInputs['units'], a: Assumptions) => (1000 * a.coresPerProcess) / c.duePlan.workerCpuMs;
const GIB = 1024 ** 3;

/** A line summing rate × a per-unit figure over the units, then `then` (a change of unit). */
function summed(part: Line['part'], label: string, what: string, figure: (u: UnitCost) => number | null, unit: string, then = (v: number) => v, after = ''): Line {
  return {
    part,
    label,
    formula: `Σ rate × ${what}${after}`,
    unit,
    compute: (s, c, a) => {
      const total = perSecond(s, c, a, figure);
      return total === null ? null : then(total);
    },
  };
}

/** Cores for a per-unit CPU figure: Σ rate × ms ÷ 1000 ÷ u. */
const coresLine = (part: Line['part'], label: string, what: string, figure: (u: UnitCost) => number | null): Line => ({
  ...summed(part, label, what, figure, 'cores', undefined, ' ÷ 1000 ÷ u'),
  compute: (s, c, a) => cores(perSecond(s, c, a, figure), a),
});

/** A line for the burst drained within the sticky timeout: b ÷ timeout × a per-due-plan figure, then `then`. */
function burstLine(
  part: Line['part'],
  label: string,
  what: string,
  figure: (u: UnitCost) => number | null,
  unit: string,
  then: (v: number, a: Assumptions) => Figure = (v) => v,
  after = '',
): Line {
  return {
    part,
    label,
    formula: `b ÷ sticky timeout × ${what}${after}`,
    unit,
    compute: (s, c, a) => {
      const value = figure(c.duePlan);
      return value === null ? null : then((burstPlans(s, a) / a.stickyDrainSeconds) * value, a);
    },
  };
}

/** Units a day × a per-unit bytes figure, in GiB. */
const dailyGib = (label: string, what: string, figure: (u: UnitCost) => number): Line => ({
  part: label.startsWith('history') ? 'temporal' : 'storage',
  label,
  formula: `Σ units a day × ${what}`,
  unit: 'GiB',
  compute: (s, c, a) => perDay(s, c, a, figure) / GIB,
});

export const LINES: readonly Line[] = [
  { part: 'workers', label: 'due plans a second (day average)', formula: 'P/86 400', unit: '/s', compute: (s, c, a) => peakRates(s, a).duePlan },
  { part: 'workers', label: 'deliveries a second (busiest hour)', formula: 'D/86 400 × k', unit: '/s', compute: (s, c, a) => peakRates(s, a).delivery },
  { part: 'workers', label: 'readings a second (busiest hour)', formula: 'R/86 400 × k', unit: '/s', compute: (s, c, a) => peakRates(s, a).reading },
  coresLine('workers', 'worker cores, busiest hour', 'worker CPU ms', (u) => u.workerCpuMs),
  {
    part: 'workers',
    label: 'worker processes, busiest hour',
    formula: '⌈worker cores ÷ cores per process⌉, at least 2',
    unit: '',
    compute: (s, c, a) =>
      Math.max(
        2,
        Math.ceil(
          (cores(
            perSecond(s, c, a, (u) => u.workerCpuMs),
            a,
          ) ?? 0) / a.coresPerProcess,
        ),
      ),
  },
  { part: 'workers', label: 'plans due at one instant (burst)', formula: 'b = P × burst share', unit: '', compute: (s, c, a) => burstPlans(s, a) },
  {
    part: 'workers',
    label: 'worker processes for the burst',
    formula: '⌈b ÷ (1000 × cores per process ÷ worker CPU ms per due plan × sticky timeout)⌉',
    unit: '',
    compute: (s, c, a) => Math.ceil(burstPlans(s, a) / (drainPerWorker(c, a) * a.stickyDrainSeconds)),
  },
  {
    part: 'workers',
    label: 'API cores for the readings, busiest hour',
    formula: 'R/86 400 × k × API CPU ms per reading ÷ 1000 ÷ u',
    unit: 'cores',
    compute: (s, c, a) => cores(peakRates(s, a).reading * c.reading.apiCpuMs, a),
  },
  {
    part: 'temporal',
    label: 'actions a day',
    formula: 'Σ units a day × actions per unit',
    unit: 'M',
    compute: (s, c, a) => (UNITS.some((u) => c[u].temporalActions === null) ? null : perDay(s, c, a, (u) => u.temporalActions ?? 0) / 1e6),
  },
  summed('temporal', 'actions a second, busiest hour', 'actions per unit', (u) => u.temporalActions, '/s'),
  burstLine('temporal', 'actions a second, burst in the sticky timeout', 'actions per due plan', (u) => u.temporalActions, '/s'),
  summed('temporal', 'history events a second, busiest hour', 'events per unit', (u) => u.historyEvents, '/s'),
  summed('temporal', 'persistence writes a second, busiest hour', 'persistence writes per unit', (u) => u.persistenceWrites, '/s'),
  burstLine('temporal', 'persistence writes a second, burst', 'writes per due plan', (u) => u.persistenceWrites, '/s'),
  burstLine(
    'temporal',
    'persistence writes a second per shard, burst',
    'writes per due plan',
    (u) => u.persistenceWrites,
    '/s',
    (v, a) => v / a.historyShards,
    ' ÷ history shards',
  ),
  coresLine('temporal', 'server cores, busiest hour (dev server: a floor)', 'server CPU ms', (u) => u.temporalCpuMs),
  burstLine('temporal', 'server cores, burst (dev server: a floor)', 'server CPU ms per due plan', (u) => u.temporalCpuMs, 'cores', cores, ' ÷ 1000 ÷ u'),
  dailyGib('history written a day', 'history bytes per unit', (u) => u.historyBytes),
  summed('postgres', 'statements a second, busiest hour', 'statements per unit', (u) => u.sqlStatements, '/s'),
  summed('postgres', 'rows a second, busiest hour', 'rows per unit', (u) => u.sqlRows, '/s'),
  summed(
    'postgres',
    'WAL a second, busiest hour',
    'WAL bytes per unit',
    (u) => u.walBytes,
    'MiB/s',
    (v) => v / 1024 ** 2,
  ),
  coresLine('postgres', 'cores, busiest hour', 'PostgreSQL CPU ms', (u) => u.postgresCpuMs),
  dailyGib('database growth a day', 'database bytes per unit', (u) => u.databaseBytes),
  {
    part: 'storage',
    label: 'database held by retention',
    formula: 'R × bytes per reading × readings days + D × bytes per delivery × delivery-log days',
    unit: 'GiB',
    compute: (s, c, a) =>
      (s.readingsPerDay * c.reading.databaseBytes * a.retentionDays.readings + s.deliveriesPerDay * c.delivery.databaseBytes * a.retentionDays.deliveries) / GIB,
  },
  {
    part: 'storage',
    label: 'a year of due plans (the work order and the rows beside it)',
    formula: 'P × database bytes per due plan × 365',
    unit: 'GiB',
    compute: (s, c) => (s.plansDuePerDay * c.duePlan.databaseBytes * 365) / GIB,
  },
  {
    part: 'storage',
    label: 'export archives, a year',
    formula: 'E × rows per export × object bytes per row × 365',
    unit: 'GiB',
    compute: (s, c, a) => (s.exportsPerDay * a.rowsPerExport * c.exportRow.objectBytes * 365) / GIB,
  },
];

/** A figure as the document prints it: three significant digits, thousands spaced, "not measured" for null. */
export function formatFigure(value: Figure): string {
  if (value === null || !Number.isFinite(value)) return 'not measured';
  if (value === 0) return '0';
  if (Number.isInteger(value) && Math.abs(value) < 1000) return String(value);
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const rounded = Number(value.toPrecision(3));
  const text = rounded.toFixed(Math.max(0, 2 - magnitude));
  const [whole, fraction] = text.split('.');
  const spaced = Number(whole).toLocaleString('en-US', { useGrouping: true, maximumFractionDigits: 0 }).replaceAll(',', ' ');
  return fraction === undefined ? spaced : `${spaced}.${fraction}`;
}

/** The sizing table: one row per line, one column per scenario. */
export function sizingTable(scenarios: readonly Scenario[], inputs: CapacityInputs, assumptions: Assumptions): string {
  const header = `| part | figure | ${scenarios.map((s) => s.name).join(' | ')} | formula |`;
  const rule = `| --- | --- | ${scenarios.map(() => '---:').join(' | ')} | --- |`;
  const rows = LINES.map((line) => {
    const cells = scenarios.map((s) => {
      const figure = formatFigure(line.compute(s, inputs.units, assumptions));
      return line.unit && figure !== 'not measured' ? `${figure} ${line.unit}` : figure;
    });
    return `| ${line.part} | ${line.label} | ${cells.join(' | ')} | ${line.formula} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** The measured inputs: one row per figure, one column per unit. */
export function inputsTable(inputs: CapacityInputs): string {
  const figures: Array<[string, (u: UnitCost) => number | null]> = [
    ['units measured', (u) => u.count],
    ['worker CPU ms', (u) => u.workerCpuMs],
    ['API CPU ms', (u) => u.apiCpuMs],
    ['Temporal server CPU ms (dev server)', (u) => u.temporalCpuMs],
    ['PostgreSQL CPU ms', (u) => u.postgresCpuMs],
    ['Temporal actions', (u) => u.temporalActions],
    ['history events', (u) => u.historyEvents],
    ['history bytes', (u) => u.historyBytes],
    ['persistence requests (dev server)', (u) => u.persistenceRequests],
    ['of which writes', (u) => u.persistenceWrites],
    ['SQL statements', (u) => u.sqlStatements],
    ['SQL rows', (u) => u.sqlRows],
    ['WAL bytes', (u) => u.walBytes],
    ['database bytes', (u) => u.databaseBytes],
    ['object storage bytes', (u) => u.objectBytes],
  ];
  const header = `| per unit | ${UNITS.map((u) => UNIT_LABELS[u]).join(' | ')} |`;
  const rule = `| --- | ${UNITS.map(() => '---:').join(' | ')} |`;
  const rows = figures.map(([label, figure]) => `| ${label} | ${UNITS.map((u) => formatFigure(figure(inputs.units[u]))).join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}

/**
 * The workloads the document sizes: a tenant with 100 plans due a day, 1 000 webhook deliveries
 * and 10 000 readings a day and one subject export a month; 10 000 of them are 1 M plans due and
 * 10 M deliveries a day.
 */
export const SCENARIOS: readonly Scenario[] = [1_000, 10_000].map((tenants) => ({
  name: `${formatFigure(tenants)} tenants`,
  tenants,
  plansDuePerDay: tenants * 100,
  deliveriesPerDay: tenants * 1_000,
  readingsPerDay: tenants * 10_000,
  exportsPerDay: tenants / 30,
}));

export const ASSUMPTIONS: Assumptions = {
  peakToAverage: 4,
  burstShareOfDailyPlans: 0.1,
  stickyDrainSeconds: 10,
  coresPerProcess: 1,
  targetUtilisation: 0.7,
  rowsPerExport: 10_000,
  // machine_events_days's default; the delivery log's sweep (domain/privacy/registry.ts).
  retentionDays: { readings: 90, deliveries: 30 },
  historyShards: 512,
};

/** What docs/CAPACITY.md holds between its markers, from the inputs. */
export function capacitySection(inputs: CapacityInputs, scenarios: readonly Scenario[] = SCENARIOS, assumptions: Assumptions = ASSUMPTIONS): string {
  const a = assumptions;
  const workload = scenarios
    .map(
      (s) =>
        `${s.name}: P = ${formatFigure(s.plansDuePerDay)} plans due, D = ${formatFigure(s.deliveriesPerDay)} deliveries, R = ${formatFigure(s.readingsPerDay)} readings, E = ${formatFigure(s.exportsPerDay)} exports a day`,
    )
    .join('; ');
  return [
    `Measured ${inputs.measured}.`,
    '',
    inputsTable(inputs),
    '',
    `Workloads: ${workload}. Assumed, not measured: the busiest hour k = ${a.peakToAverage}× the day's average; a burst of ${a.burstShareOfDailyPlans * 100} % of a day's plans due at one instant; a sticky timeout of ${a.stickyDrainSeconds} s; ${a.coresPerProcess} core per worker or API process, kept at u = ${a.targetUtilisation * 100} % busy; ${formatFigure(a.rowsPerExport)} rows per export; readings kept ${a.retentionDays.readings} days, the delivery log ${a.retentionDays.deliveries}; ${a.historyShards} history shards.`,
    '',
    sizingTable(scenarios, inputs, assumptions),
  ].join('\n');
}

export const SECTION_BEGIN = '<!-- capacity:begin (npm run bench -- capacity writes this part) -->';
export const SECTION_END = '<!-- capacity:end -->';

/** `document` with the part between its markers replaced by `section`; throws when the markers are missing. */
export function withSection(document: string, section: string): string {
  const begin = document.indexOf(SECTION_BEGIN);
  const end = document.indexOf(SECTION_END);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${SECTION_BEGIN} ... ${SECTION_END} part`);
  return `${document.slice(0, begin + SECTION_BEGIN.length)}\n\n${section}\n\n${document.slice(end)}`;
}

/** The part between the markers, as `withSection` wrote it. */
export function sectionOf(document: string): string {
  const begin = document.indexOf(SECTION_BEGIN);
  const end = document.indexOf(SECTION_END);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${SECTION_BEGIN} ... ${SECTION_END} part`);
  return document.slice(begin + SECTION_BEGIN.length, end).trim();
}
