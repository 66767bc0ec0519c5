/**
 * What the maintenance routers share: request and response schemas, row → resource mappers, and
 * what a plan's service calls take from the request (deps, idempotency key); the lookups and the
 * calls to a plan's workflow are services/maintenance.ts.
 */
import Joi from '../../domain/joi';
import { PLAN_TASK_KINDS, PlanRow, PRIORITIES, TaskRow } from '../../db/queries/maintenance';
import {
  CALENDAR_MODES,
  CALENDAR_UNITS,
  isValidDuration,
  ISO_INSTANT,
  MAX_CONDITION_MINUTES,
  MAX_LEAD_DAYS,
  MIN_COUNTER_EVERY,
  isValidInstant,
  isValidTaskPrefix,
  ON_OPEN_TASK_POLICIES,
  TASK_PREFIX,
  TASK_PREFIX_RULE,
  TASK_STATUSES,
  validateTrigger,
} from '../../domain/maintenance';
import type { PlanDeps, PlanFields } from '../../services/maintenance';
import { AppContext } from '../context';
import type { resourceRoutes } from '../resource-routes';
import { idParam, idRef } from '../validation';
import { isoTime } from '../../domain/time';

/** The plan routes' builder, shared by the routers that add to /maintenance/plans. */
export type PlanRoutes = ReturnType<typeof resourceRoutes<PlanRow>>;

// ---- request schemas -------------------------------------------------------------------------

const isoInstant = Joi.string()
  .max(40)
  .meta({ pattern: ISO_INSTANT.source })
  .custom((v: string, h) => (isValidInstant(v) ? v : h.error('any.invalid')))
  .messages({ 'any.invalid': 'must be an ISO 8601 timestamp with offset, e.g. 2024-01-31T08:00:00Z' });
export const isoDuration = Joi.string()
  .max(40)
  .custom((v: string, h) => (isValidDuration(v) ? v : h.error('any.invalid')))
  .messages({ 'any.invalid': 'must be an ISO 8601 duration such as P0D, PT12H or P1DT6H' });

const calendarPart = {
  every: Joi.number().integer().min(1).max(10_000).required(),
  unit: Joi.string()
    .valid(...CALENDAR_UNITS)
    .required(),
  start_at: isoInstant.required().description('The first due time'),
  mode: Joi.string()
    .valid(...CALENDAR_MODES)
    .default('fixed')
    .description('fixed: due dates stay on the grid; floating: next due counts from the last execution'),
};
const counterPart = {
  counter: Joi.string().trim().min(1).max(100).required().description('Name of the meter, e.g. operating_hours'),
  unit: Joi.string().trim().min(1).max(20).required(),
  every: Joi.number().min(MIN_COUNTER_EVERY).max(1e12).required(),
  start_value: Joi.number().min(-1e12).max(1e12).default(0).description('Meter reading when counting starts; first threshold = start_value + every'),
};
const conditionShape = Joi.object({
  type: Joi.string().valid('condition').required(),
  parameter: Joi.string().trim().min(1).max(100).required().description('The reading parameter, e.g. vibration; the assets need a baseline or failure limit for it'),
  above: Joi.number().description('Due when the parameter stays above this value (exactly one of above and below)'),
  below: Joi.number().description('Due when the parameter stays below this value'),
  deadband: Joi.number()
    .min(0)
    .description('Hysteresis: a reading is back inside only this far past the limit (default 5 % of the limit), so a sensor flapping around it stays in one excursion'),
  for_minutes: Joi.number().integer().min(0).max(MAX_CONDITION_MINUTES).required().description('How long the readings must stay beyond the limit; as long back inside re-arms it'),
  calendar: Joi.object(calendarPart).description('Optional calendar fallback: due by whichever comes first'),
})
  .xor('above', 'below')
  .example({ type: 'condition', parameter: 'vibration', above: 3.5, for_minutes: 60 });
const predictiveShape = Joi.object({
  type: Joi.string().valid('predictive').required(),
  parameter: Joi.string()
    .trim()
    .min(1)
    .max(100)
    .required()
    .description("The reading parameter whose prognosis is watched; the assets need a failure limit (their type's predictive config) or a baseline for it"),
  lead_days: Joi.number()
    .greater(0)
    .max(MAX_LEAD_DAYS)
    .required()
    .description('The work order is due this many days before the projected crossing of the limit; also the horizon of the probability'),
  min_probability: Joi.number().greater(0).max(1).required().description('Due once the prognosis gives at least this probability of reaching the limit within lead_days'),
  calendar: Joi.object(calendarPart).description('Optional calendar fallback: due by whichever comes first'),
}).example({ type: 'predictive', parameter: 'vibration', lead_days: 14, min_probability: 0.5 });
const triggerType = (type: string) => Joi.object({ type: Joi.valid(type) }).unknown();
const triggerShapes = {
  calendar: Joi.object({ type: Joi.string().valid('calendar').required(), ...calendarPart }),
  counter: Joi.object({ type: Joi.string().valid('counter').required(), ...counterPart }),
  calendar_or_counter: Joi.object({
    type: Joi.string().valid('calendar_or_counter').required(),
    calendar: Joi.object(calendarPart).required(),
    counter: Joi.object(counterPart).required(),
  }),
  condition: conditionShape,
  predictive: predictiveShape,
};
export const triggerSchema = Joi.alternatives()
  // Chosen by `type`, so a mistake is reported against that shape's fields.
  .conditional(triggerType('calendar'), { then: triggerShapes.calendar })
  .conditional(triggerType('counter'), { then: triggerShapes.counter })
  .conditional(triggerType('calendar_or_counter'), { then: triggerShapes.calendar_or_counter })
  .conditional(triggerType('condition'), { then: triggerShapes.condition })
  .conditional(triggerType('predictive'), {
    then: triggerShapes.predictive,
    otherwise: Joi.object({ type: Joi.string().valid('calendar', 'counter', 'calendar_or_counter', 'condition', 'predictive').required() }).unknown(),
  })
  .meta({ documentAs: Joi.alternatives().try(...Object.values(triggerShapes)) })
  // The domain's own check, and its canonical form (start_at as toISOString).
  .custom((value, h) => {
    if (value === undefined) return value;
    const result = validateTrigger(value);
    return result.ok ? result.value : h.message({ custom: result.errors.map((e) => `${e.field} ${e.message}`).join('; ') });
  });

const userId = idRef;
export const notifySchema = Joi.object({
  recipients: Joi.array().items(userId).max(50).unique().required().description('User ids of the tenant (the assignee is notified too)'),
  lead_time: isoDuration.required().description('Notify this long before the due time'),
});

export const planFields = {
  name: Joi.string().trim().min(1).max(200),
  description: Joi.string().trim().max(2_000).allow(null, ''),
  asset_ids: Joi.array().items(idRef).max(200).unique(),
  trigger: triggerSchema,
  checklist: Joi.array().items(Joi.string().trim().min(1).max(500)).max(200),
  assignee_id: userId.allow(null),
  priority: Joi.string().valid(...PRIORITIES),
  estimated_minutes: Joi.number().integer().min(1).max(100_000).allow(null),
  task_kind: Joi.string()
    .valid(...PLAN_TASK_KINDS)
    .description("Kind of the generated tasks: an `inspection` is completed with the inspector's condition rating, which is recorded on the assets"),
  task_prefix: Joi.string()
    .meta({ pattern: TASK_PREFIX.source })
    .custom((v: string, h) => (isValidTaskPrefix(v) ? v : h.error('any.invalid')))
    .messages({ 'any.invalid': `must be ${TASK_PREFIX_RULE}` }),
  notify: notifySchema.allow(null),
  on_open_task: Joi.string()
    .valid(...ON_OPEN_TASK_POLICIES)
    .description('What a due time does while the previous task is open'),
  generate_ahead: isoDuration.description('Create the task this long before its due time'),
};
export const createPlanBody = Joi.object({
  ...planFields,
  name: planFields.name.required(),
  trigger: planFields.trigger.required(),
  status: Joi.string().valid('active', 'paused').default('active'),
});
export const updatePlanBody = Joi.object(planFields).min(1);

export const planParams = Joi.object({ plan_id: idParam.required() });
export const taskParams = Joi.object({ task_id: idParam.required() });

// ---- response schemas and mappers ------------------------------------------------------------

const ts = Joi.string().isoDate();
export const planSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  description: Joi.string().allow(null),
  asset_ids: Joi.array().items(Joi.string()),
  trigger: Joi.object().unknown(true),
  checklist: Joi.array().items(Joi.string()),
  assignee_id: Joi.string().allow(null),
  priority: Joi.string(),
  estimated_minutes: Joi.number().allow(null),
  task_kind: Joi.string().valid(...PLAN_TASK_KINDS),
  task_prefix: Joi.string(),
  notify: Joi.object().unknown(true).allow(null),
  on_open_task: Joi.string(),
  generate_ahead: Joi.string(),
  status: Joi.string().valid('active', 'paused', 'archived'),
  next_due_at: ts.allow(null).description("ISO 8601 UTC: calendar due time, counter projection, a predictive plan's projected due time, or the earliest of them"),
  next_due_trigger: Joi.string()
    .valid('calendar', 'counter')
    .allow(null)
    .description('Calendar or counter; null when `next_due_cause` is another trigger (API 1.x keeps these two values)'),
  // No enum: a trigger added later must not break a client generated from 1.0.0.
  next_due_cause: Joi.string().allow(null).description('What next_due_at comes from: `calendar`, `counter` or `predictive` (the prognosis)'),
  interval_hours: Joi.number().allow(null).description('Nominal interval (compliance grace base)'),
  version: Joi.number().integer().description('Incremented by every change of the plan'),
  workflow_id: Joi.string(),
  created_at: ts,
  updated_at: ts,
});
const num = (n: string | number | null) => (n === null ? null : Number(n));

export function toPlan(row: PlanRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    asset_ids: row.asset_ids,
    trigger: row.trigger,
    checklist: row.checklist,
    assignee_id: row.assignee_id,
    priority: row.priority,
    estimated_minutes: row.estimated_minutes,
    task_kind: row.task_kind,
    task_prefix: row.task_prefix,
    notify: row.notify,
    on_open_task: row.on_open_task,
    generate_ahead: row.generate_ahead,
    status: row.status,
    next_due_at: isoTime(row.next_due_at),
    next_due_trigger: row.next_due_trigger === 'calendar' || row.next_due_trigger === 'counter' ? row.next_due_trigger : null,
    next_due_cause: row.next_due_trigger,
    interval_hours: num(row.interval_hours),
    version: row.version,
    workflow_id: `maintenance-plan/${row.tenant_id}/${row.id}`,
    created_at: isoTime(row.created_at)!,
    updated_at: isoTime(row.updated_at)!,
  };
}

const reading = Joi.object({ at: ts, value: Joi.number() });
/** What a condition or predictive decision saw; null for calendar, counter and user executions. */
export const evidenceSchema = Joi.object({
  asset_id: Joi.string(),
  parameter: Joi.string(),
  limit: Joi.object({ above: Joi.number(), below: Joi.number() }),
  for_minutes: Joi.number(),
  first_reading: reading.description('The first reading of the excursion'),
  last_reading: reading.description('The last reading seen when the plan became due'),
  model_version: Joi.string().description('Predictive: the prognosis model'),
  remaining_useful_life: Joi.number().allow(null).description('Predictive: days until the trend reaches the limit'),
  remaining_useful_life_interval: Joi.array().items(Joi.number().allow(null)).allow(null).description('Predictive: its 90 % interval in days (upper end null: unbounded)'),
  projected_crossing_at: ts.allow(null).description('Predictive: when the trend reaches the limit'),
  probability: Joi.number().description('Predictive: probability of reaching the limit within lead_days'),
  readings: Joi.object({ count: Joi.number(), from: ts.allow(null), to: ts.allow(null) }).description('Predictive: the readings the prognosis used'),
})
  .unknown(true)
  .allow(null)
  .description(
    'What the decision saw (condition trigger: the parameter, its limit, the first and last reading in the window; predictive trigger: the model version, remaining useful life and its interval, the probability and the readings used)',
  );

export const taskSchema = Joi.object({
  id: Joi.string(),
  task_code: Joi.string(),
  plan_id: Joi.string().allow(null),
  asset_ids: Joi.array().items(Joi.string()),
  title: Joi.string(),
  checklist: Joi.array().items(Joi.string()),
  assignee_id: Joi.string().allow(null),
  priority: Joi.string(),
  estimated_minutes: Joi.number().allow(null),
  status: Joi.string().valid(...TASK_STATUSES),
  kind: Joi.string(),
  trigger: Joi.string().allow(null),
  evidence: evidenceSchema,
  due_at: ts,
  overdue: Joi.boolean().description('Open past due + 10 % of the plan interval'),
  started_at: ts.allow(null),
  completed_at: ts.allow(null),
  completed_by: Joi.string().allow(null),
  cancelled_at: ts.allow(null),
  notes: Joi.string().allow(null),
  created_at: ts,
  updated_at: ts,
});

export function toTask(row: TaskRow) {
  return {
    id: row.id,
    task_code: row.task_code,
    plan_id: row.plan_id,
    asset_ids: row.asset_ids,
    title: row.title,
    checklist: row.checklist,
    assignee_id: row.assignee_id,
    priority: row.priority,
    estimated_minutes: row.estimated_minutes,
    status: row.status,
    kind: row.kind,
    trigger: row.trigger,
    evidence: row.evidence,
    due_at: isoTime(row.due_at)!,
    overdue: row.overdue_at !== null && (row.status === 'open' || row.status === 'in_progress'),
    started_at: isoTime(row.started_at),
    completed_at: isoTime(row.completed_at),
    completed_by: row.completed_by,
    cancelled_at: isoTime(row.cancelled_at),
    notes: row.notes,
    created_at: isoTime(row.created_at)!,
    updated_at: isoTime(row.updated_at)!,
  };
}

// ---- lookups ---------------------------------------------------------------------------------

export { requirePlan } from '../../services/maintenance';
export type PlanBody = PlanFields;

// ---- the plan's workflow ---------------------------------------------------------------------

/** The request's own Idempotency-Key as an Update id (`key:<key>`), or null when it sent none usable. */
export function idempotencyKeyOf(ctx: AppContext): string | null {
  const key = ctx.get('idempotency-key');
  return key && /^[\x21-\x7e]{1,200}$/.test(key) ? `key:${key}` : null;
}

/** The request id an Update carries: the client's Idempotency-Key when sent, else this request's id. */
export function updateRequestId(ctx: AppContext): string {
  return idempotencyKeyOf(ctx) ?? ctx.state.requestId;
}

/** What a plan's service calls need of the request: the database, Temporal with the API's deadline, and its log. */
export function planDeps(ctx: AppContext): PlanDeps {
  return { db: ctx.deps.db, temporal: ctx.deps.temporal, log: ctx.state.log };
}
