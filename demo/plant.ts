/**
 * The demo plant that `npm run up` seeds (demo/seed-plant.ts) and the simulated gateway feeds
 * (demo/gateway.ts): one site, two lines, eight assets, their monitored parameters with baselines,
 * and which pump degrades. Names are the seed's identity: a resource that exists by name is kept.
 */

export interface MonitoredParameter {
  parameter: string;
  unit: string;
  baseline: number;
  tolerancePercent: number;
  /** Relative noise of the simulated readings (0.02 = ±2 %). */
  noise: number;
}

export interface DemoAsset {
  name: string;
  type: string;
  /** The asset's parent by name; null: the site itself. */
  parent: string | null;
  parameters: MonitoredParameter[];
}

const pumpParameters = (baselineVibration: number): MonitoredParameter[] => [
  { parameter: 'vibration', unit: 'mm/s', baseline: baselineVibration, tolerancePercent: 20, noise: 0.03 },
  { parameter: 'temperature', unit: 'C', baseline: 55, tolerancePercent: 15, noise: 0.01 },
  { parameter: 'pressure', unit: 'bar', baseline: 6, tolerancePercent: 10, noise: 0.01 },
];
const motorParameters: MonitoredParameter[] = [
  { parameter: 'temperature', unit: 'C', baseline: 70, tolerancePercent: 15, noise: 0.01 },
  { parameter: 'current', unit: 'A', baseline: 42, tolerancePercent: 10, noise: 0.02 },
];

export const SITE = 'North Works';
export const DEGRADING_PUMP = 'Cooling pump P-101';

export const DEMO_ASSETS: DemoAsset[] = [
  { name: SITE, type: 'site', parent: null, parameters: [] },
  { name: 'Line 1 - Extrusion', type: 'line', parent: SITE, parameters: [] },
  { name: 'Line 2 - Packaging', type: 'line', parent: SITE, parameters: [] },
  { name: DEGRADING_PUMP, type: 'pump', parent: 'Line 1 - Extrusion', parameters: pumpParameters(2.5) },
  { name: 'Feed pump P-102', type: 'pump', parent: 'Line 1 - Extrusion', parameters: pumpParameters(2.2) },
  { name: 'Extruder motor M-110', type: 'motor', parent: 'Line 1 - Extrusion', parameters: motorParameters },
  { name: 'Conveyor motor M-210', type: 'motor', parent: 'Line 2 - Packaging', parameters: motorParameters },
  { name: 'Wrapper motor M-220', type: 'motor', parent: 'Line 2 - Packaging', parameters: motorParameters },
  {
    name: 'Air compressor C-201',
    type: 'compressor',
    parent: 'Line 2 - Packaging',
    parameters: [
      { parameter: 'pressure', unit: 'bar', baseline: 8, tolerancePercent: 8, noise: 0.01 },
      { parameter: 'temperature', unit: 'C', baseline: 80, tolerancePercent: 12, noise: 0.01 },
    ],
  },
];

/** The counter plan that the gateway's run hours bring due. */
/** A condition plan on the degrading pump: a work order, with its evidence, once it stays out of its band. */
export const CONDITION_PLAN = 'Inspect P-101 when its vibration stays high';
/** The degrading pump's band edge (baseline 2.5 mm/s + 20 %), held for CONDITION_MINUTES. */
export const CONDITION_LIMIT = 3;
export const CONDITION_MINUTES = 2;
/**
 * A predictive plan on the same pump: its prognosis projects the rising vibration to the band edge
 * and the work order comes before the condition plan's, due a day before the projected crossing
 * (the demo's minutes of degradation make that "now").
 */
export const PREDICTIVE_PLAN = 'Overhaul P-101 before its vibration leaves its band';
export const PREDICTIVE_LEAD_DAYS = 1;
export const PREDICTIVE_MIN_PROBABILITY = 0.5;
export const RUN_HOURS_PLAN = 'Compressor C-201 service every 250 run hours';
export const RUN_HOURS_EVERY = 250;
/**
 * The compressor's hour meter when the demo first starts (an hour before its service), and the run
 * time per gateway tick: 3 minutes, so the 3-second ticks of `npm run up` run the plant 60 times
 * faster than real time and the plan comes due about a minute after the start. (Faster would make
 * its projected interval, and with it the 10 % grace before overdue, only seconds long.)
 */
export const RUN_HOURS_AT_START = 249;
export const RUN_HOURS_PER_TICK = 0.05;

export const DEMO_WEBHOOK_EVENTS = ['asset.alert.*', 'task.*'];
export const DEMO_AGENT = 'Vibration watcher';
export const DEMO_BRANDING = 'North Works';
export const DEMO_SCHEDULED_REPORT = 'Weekly open alerts';

/**
 * The degrading pump's vibration after `ticks` gateway ticks: flat for a while, then rising by
 * `ratePerTick` of its baseline per tick, so it leaves its 20 % band after about
 * 10 + 20 % / rate ticks (about four minutes at the default pace and rate).
 */
export function degradedVibration(baseline: number, ticks: number, ratePerTick: number): number {
  return baseline * (1 + Math.max(0, ticks - 10) * ratePerTick);
}
