// Plan optimisation (POST .../optimize): deterministic, explainable rules over the plan's history.
// Each rule needs a minimum of evidence and otherwise stays silent; see README.md for the rules.
import type { CalendarPart, CalendarUnit, CounterPart, Instant, TaskStatus, Trigger } from './types';
import { CALENDAR_UNITS, calendarPartOf, counterPartOf } from './types';
import { intervalHours } from './calendar';
import { classifyTask } from './compliance';
import { triggerIntervalHours } from './trigger';
import { MS_PER_HOUR, toMs } from './instant';
import { median } from '../numbers';
import { conditionOutcomes, type ConditionOutcomes, type ConditionWorkOrder } from './condition-outcomes';

export const ANALYSIS_WINDOW_DAYS = 365;
export const MIN_FAILURES = 2; // failures/corrective jobs needed to suggest a shorter interval
export const MIN_CLEAN_EXECUTIONS = 6; // completed tasks without any failure needed to suggest a longer one
export const LENGTHEN_FACTOR = 1.25;
export const OVERLOAD_MIN_OPEN_TASKS = 5;
export const SIMILAR_INTERVAL_RATIO = 1.25; // plans within this ratio of each other can share a route

export interface OptimizeInput {
  now: Instant;
  plan: {
    id: string;
    trigger: Trigger;
    assignee_id: string | null;
    asset_ids: string[];
    location_ids: string[]; // locations of the plan's assets
  };
  tasks: { due_at: Instant; completed_at: Instant | null; status: TaskStatus }[]; // this plan's tasks
  asset_events: { asset_id: string; occurred_at: Instant; kind: 'failure' | 'corrective' }[]; // on the plan's assets
  technicians: { id: string; open_tasks: number }[]; // candidates for the plan, with their open task counts
  other_plans: { id: string; trigger: Trigger; asset_ids: string[]; location_ids: string[] }[]; // active plans of the tenant
  counter_rate_per_hour: number | null; // the meter's recent rate (counter.estimateRatePerHour)
  /** A condition or predictive plan's work orders (the asset of each one's evidence) and the alerts raised on its assets. */
  condition?: { work_orders: ConditionWorkOrder[]; alerts: { asset_id: string; occurred_at: Instant }[] };
}

export interface PlanPatch {
  trigger?: Trigger;
  assignee_id?: string;
}

interface SuggestionBase {
  rationale: string;
  confidence: number; // 0..1, 2 decimals
  patch: PlanPatch | null; // what approving changes on this plan (null: nothing on the plan itself)
}

export type Suggestion =
  | (SuggestionBase & {
      kind: 'frequency';
      current: { every: number; unit: CalendarUnit };
      suggested: { every: number; unit: CalendarUnit };
    })
  | (SuggestionBase & {
      kind: 'counter_threshold';
      current: { every: number; unit: string };
      suggested: { every: number; unit: string };
    })
  | (SuggestionBase & {
      kind: 'workload';
      current: { assignee_id: string | null; open_tasks: number | null };
      suggested: { assignee_id: string; open_tasks: number };
    })
  | (SuggestionBase & {
      kind: 'route';
      current: { plan_ids: string[] };
      suggested: { plan_ids: string[]; shared_asset_ids: string[]; shared_location_ids: string[] };
    });

/** What the analysis saw, returned with the suggestions so a reader can check them. */
export interface OptimizeBasis {
  window_days: number;
  failures: number; // failures and corrective jobs on the plan's assets in the window
  completed_tasks: number;
  late_tasks: number; // completed after due + 10 % of the interval, or still open past it
  counter_rate_per_hour: number | null;
  /** Condition and predictive plans only: how their work orders turned out (condition-outcomes.ts). */
  condition_work_orders?: ConditionOutcomes;
}

export interface OptimizeResult {
  suggestions: Suggestion[];
  basis: OptimizeBasis;
}

export function analyzePlan(input: OptimizeInput): OptimizeResult {
  const history = summarizeHistory(input);
  const suggestions = [frequencySuggestion(input, history), counterThresholdSuggestion(input, history), workloadSuggestion(input, history), routeSuggestion(input)].filter(
    (s): s is Suggestion => s !== null,
  );
  return {
    suggestions,
    basis: {
      window_days: ANALYSIS_WINDOW_DAYS,
      failures: history.failures,
      completed_tasks: history.completed,
      late_tasks: history.late,
      counter_rate_per_hour: input.counter_rate_per_hour,
      ...(input.condition ? { condition_work_orders: conditionOutcomes(input.condition.work_orders, [...input.asset_events, ...input.condition.alerts], input.now) } : {}),
    },
  };
}

interface History {
  failures: number;
  mtbfHours: number | null; // window / failures, when failures >= MIN_FAILURES
  completed: number;
  late: number;
  mostlyLate: boolean; // more than half of the counted tasks were late
}

function summarizeHistory(input: OptimizeInput): History {
  const nowMs = toMs(input.now);
  const windowHours = ANALYSIS_WINDOW_DAYS * 24;
  const fromMs = nowMs - windowHours * MS_PER_HOUR;
  const inWindow = (at: Instant) => toMs(at) >= fromMs && toMs(at) <= nowMs;
  const failures = input.asset_events.filter((e) => inWindow(e.occurred_at)).length;
  const interval = triggerIntervalHours(input.plan.trigger, input.counter_rate_per_hour) ?? 0;
  let completed = 0;
  let onTime = 0;
  let late = 0;
  for (const task of input.tasks.filter((t) => inWindow(t.due_at))) {
    if (task.status === 'done') completed += 1;
    const kind = classifyTask({ ...task, interval_hours: interval }, input.now).kind;
    if (kind === 'on_time') onTime += 1;
    if (kind === 'late' || kind === 'overdue_open') late += 1;
  }
  return {
    failures,
    mtbfHours: failures >= MIN_FAILURES ? windowHours / failures : null,
    completed,
    late,
    mostlyLate: late > onTime,
  };
}

function frequencySuggestion(input: OptimizeInput, h: History): Suggestion | null {
  const part = calendarPartOf(input.plan.trigger);
  if (part === null) return null;
  const currentHours = intervalHours(part.every, part.unit);
  let suggested: { every: number; unit: CalendarUnit } | null = null;
  let rationale = '';
  let confidence = 0;
  if (h.mtbfHours !== null && h.mtbfHours / 2 < currentHours) {
    suggested = hoursToInterval(h.mtbfHours / 2, part.unit);
    rationale =
      `${h.failures} failures or corrective jobs on the plan's assets in the last ${ANALYSIS_WINDOW_DAYS} days, ` +
      `one every ${formatHours(h.mtbfHours)} on average, while the plan runs every ${part.every} ${part.unit}; ` +
      `servicing at half the mean time between failures catches wear before the typical failure.`;
    confidence = failureConfidence(h.failures);
  } else if (h.failures === 0 && h.completed >= MIN_CLEAN_EXECUTIONS) {
    suggested = { every: lengthened(part.every), unit: part.unit };
    rationale =
      `${h.completed} completed executions and no failure or corrective job on the plan's assets in the last ` +
      `${ANALYSIS_WINDOW_DAYS} days` +
      (h.mostlyLate ? ', even though most tasks were completed late' : '') +
      `; the interval can be extended by ${Math.round((LENGTHEN_FACTOR - 1) * 100)} %.`;
    confidence = cleanHistoryConfidence(h);
  }
  if (suggested === null || (suggested.every === part.every && suggested.unit === part.unit)) return null;
  return {
    kind: 'frequency',
    current: { every: part.every, unit: part.unit },
    suggested,
    rationale,
    confidence,
    patch: { trigger: withCalendar(input.plan.trigger, { ...part, ...suggested }) },
  };
}

function counterThresholdSuggestion(input: OptimizeInput, h: History): Suggestion | null {
  const part = counterPartOf(input.plan.trigger);
  const rate = input.counter_rate_per_hour;
  if (part === null || rate === null || rate <= 0) return null;
  let every: number | null = null;
  let rationale = '';
  let confidence = 0;
  const calendar = calendarPartOf(input.plan.trigger);
  const hoursToThreshold = part.every / rate;
  if (h.mtbfHours !== null && (h.mtbfHours * rate) / 2 < part.every) {
    const usageBetweenFailures = h.mtbfHours * rate;
    every = roundDown2Significant(usageBetweenFailures / 2);
    rationale =
      `${h.failures} failures or corrective jobs in the last ${ANALYSIS_WINDOW_DAYS} days; at the meter's rate of ` +
      `${round2(rate)} ${part.unit}/h that is one every ${round2(usageBetweenFailures)} ${part.unit}, while the ` +
      `threshold is every ${part.every} ${part.unit}; half the usage between failures is suggested.`;
    confidence = round2(failureConfidence(h.failures) - 0.1); // the rate adds uncertainty
  } else if (calendar !== null && hoursToThreshold > 2 * intervalHours(calendar.every, calendar.unit)) {
    every = roundDown2Significant(rate * intervalHours(calendar.every, calendar.unit));
    rationale =
      `At ${round2(rate)} ${part.unit}/h the counter needs ${formatHours(hoursToThreshold)} to reach ` +
      `${part.every} ${part.unit}, more than twice the calendar interval of ${calendar.every} ${calendar.unit}, ` +
      `so it never triggers; a threshold matching the calendar interval makes it meaningful again.`;
    confidence = 0.6;
  } else if (h.failures === 0 && h.completed >= MIN_CLEAN_EXECUTIONS) {
    every = roundDown2Significant(part.every * LENGTHEN_FACTOR);
    rationale =
      `${h.completed} completed executions and no failure or corrective job in the last ${ANALYSIS_WINDOW_DAYS} ` +
      `days; the threshold can be raised by ${Math.round((LENGTHEN_FACTOR - 1) * 100)} %.`;
    confidence = cleanHistoryConfidence(h);
  }
  if (every === null || every <= 0 || every === part.every) return null;
  return {
    kind: 'counter_threshold',
    current: { every: part.every, unit: part.unit },
    suggested: { every, unit: part.unit },
    rationale,
    confidence,
    patch: { trigger: withCounter(input.plan.trigger, { ...part, every }) },
  };
}

function workloadSuggestion(input: OptimizeInput, h: History): Suggestion | null {
  const techs = [...input.technicians].sort((a, b) => a.open_tasks - b.open_tasks || compare(a.id, b.id));
  const current = techs.find((t) => t.id === input.plan.assignee_id) ?? null;
  const candidates = techs.filter((t) => t.id !== input.plan.assignee_id);
  if (candidates.length === 0) return null;
  const best = candidates[0];
  if (current === null) {
    if (input.plan.assignee_id !== null) return null; // assignee unknown to the workload data: no basis
    return {
      kind: 'workload',
      current: { assignee_id: null, open_tasks: null },
      suggested: { assignee_id: best.id, open_tasks: best.open_tasks },
      rationale: `The plan has no assignee; ${best.id} has the fewest open tasks (${best.open_tasks}).`,
      confidence: 0.4,
      patch: { assignee_id: best.id },
    };
  }
  const loads = techs.map((t) => t.open_tasks);
  const typical = median(loads);
  const overloaded = current.open_tasks >= OVERLOAD_MIN_OPEN_TASKS && current.open_tasks >= 2 * typical;
  if (!overloaded || best.open_tasks > current.open_tasks / 2) return null;
  return {
    kind: 'workload',
    current: { assignee_id: current.id, open_tasks: current.open_tasks },
    suggested: { assignee_id: best.id, open_tasks: best.open_tasks },
    rationale:
      `The assignee has ${current.open_tasks} open tasks, at least twice the team median of ${typical}; ` +
      `${best.id} has ${best.open_tasks}` +
      (h.mostlyLate ? ", and most of this plan's tasks were completed late." : '.'),
    confidence: h.mostlyLate ? 0.7 : 0.5,
    patch: { assignee_id: best.id },
  };
}

function routeSuggestion(input: OptimizeInput): Suggestion | null {
  const part = calendarPartOf(input.plan.trigger);
  if (part === null) return null;
  const hours = intervalHours(part.every, part.unit);
  const assets = new Set(input.plan.asset_ids);
  const locations = new Set(input.plan.location_ids);
  const matches = input.other_plans
    .filter((p) => p.id !== input.plan.id)
    .map((p) => {
      const other = calendarPartOf(p.trigger);
      if (other === null) return null;
      const ratio = intervalHours(other.every, other.unit) / hours;
      if (ratio > SIMILAR_INTERVAL_RATIO || ratio < 1 / SIMILAR_INTERVAL_RATIO) return null;
      const sharedAssets = p.asset_ids.filter((a) => assets.has(a));
      const sharedLocations = p.location_ids.filter((l) => locations.has(l));
      if (sharedAssets.length === 0 && sharedLocations.length === 0) return null;
      return { id: p.id, sharedAssets, sharedLocations, sameInterval: other.every === part.every && other.unit === part.unit };
    })
    .filter((m): m is NonNullable<typeof m> => m !== null)
    .sort((a, b) => compare(a.id, b.id));
  if (matches.length === 0) return null;
  const sharedAssetIds = uniqueSorted(matches.flatMap((m) => m.sharedAssets));
  const sharedLocationIds = uniqueSorted(matches.flatMap((m) => m.sharedLocations));
  const confidence = matches.some((m) => m.sharedAssets.length > 0 && m.sameInterval) ? 0.8 : sharedAssetIds.length > 0 ? 0.6 : 0.4;
  return {
    kind: 'route',
    current: { plan_ids: [input.plan.id] },
    suggested: {
      plan_ids: [input.plan.id, ...matches.map((m) => m.id)],
      shared_asset_ids: sharedAssetIds,
      shared_location_ids: sharedLocationIds,
    },
    rationale:
      `${matches.length} other plan(s) with a similar interval (within ${Math.round((SIMILAR_INTERVAL_RATIO - 1) * 100)} %) ` +
      (sharedAssetIds.length > 0 ? `service the same assets` : `service assets at the same location`) +
      `; one route on aligned due dates saves a trip per interval.`,
    confidence,
    patch: null,
  };
}

// ---- helpers ----

/** The largest whole interval not longer than `hours`, in `unit` or the next smaller unit (at least 1 hour). */
function hoursToInterval(hours: number, unit: CalendarUnit): { every: number; unit: CalendarUnit } {
  for (let i = CALENDAR_UNITS.indexOf(unit); i >= 0; i -= 1) {
    const u = CALENDAR_UNITS[i];
    const every = Math.floor(hours / intervalHours(1, u));
    if (every >= 1) return { every, unit: u };
  }
  return { every: 1, unit: 'hours' };
}

function lengthened(every: number): number {
  return Math.max(every + 1, Math.round(every * LENGTHEN_FACTOR));
}

function failureConfidence(failures: number): number {
  return failures >= 5 ? 0.8 : failures >= 3 ? 0.6 : 0.4;
}

function cleanHistoryConfidence(h: History): number {
  return round2(0.5 + (h.completed >= 12 ? 0.1 : 0) + (h.mostlyLate ? 0.1 : 0));
}

/** The trigger with its calendar part replaced (a condition's or prediction's calendar fallback too); unchanged without one. */
export function withCalendar(trigger: Trigger, calendar: CalendarPart): Trigger {
  if (trigger.type === 'calendar') return { type: 'calendar', ...calendar };
  if (trigger.type === 'calendar_or_counter') return { ...trigger, calendar };
  if ((trigger.type === 'condition' || trigger.type === 'predictive') && trigger.calendar) return { ...trigger, calendar };
  return trigger;
}

/** The trigger with its counter part replaced; unchanged without one. */
export function withCounter(trigger: Trigger, counter: CounterPart): Trigger {
  if (trigger.type === 'counter') return { type: 'counter', ...counter };
  if (trigger.type === 'calendar_or_counter') return { ...trigger, counter };
  return trigger;
}

/** 1234 -> 1200, 0.0456 -> 0.045: suggested thresholds read like values a person would choose. */
function roundDown2Significant(n: number): number {
  if (n <= 0) return 0;
  const magnitude = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Number((Math.floor(n / magnitude) * magnitude).toPrecision(2));
}

function formatHours(hours: number): string {
  return hours >= 48 ? `${round2(hours / 24)} days` : `${round2(hours)} hours`;
}

function uniqueSorted(values: string[]): string[] {
  return [...new Set(values)].sort(compare);
}

// Locale-independent ordering: determinism matters more than alphabetic niceties.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
