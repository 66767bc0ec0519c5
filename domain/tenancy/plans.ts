/**
 * Tenant plans: request rate limits (SPEC.md, Limits) and resource limits. "Burst" is the most
 * requests accepted in any one second (DESIGN.md).
 */
export const PLAN_NAMES = ['free', 'starter', 'professional', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface RateLimit {
  requestsPerMinute: number;
  burstPerSecond: number;
}

export const RATE_LIMITS: Readonly<Record<PlanName, RateLimit>> = {
  free: { requestsPerMinute: 30, burstPerSecond: 10 },
  starter: { requestsPerMinute: 120, burstPerSecond: 30 },
  professional: { requestsPerMinute: 600, burstPerSecond: 100 },
  enterprise: { requestsPerMinute: 3000, burstPerSecond: 500 },
};

/** Countable resources a plan caps. `null` means unlimited. */
export type LimitedResource = 'agents' | 'assets' | 'maintenance_plans' | 'webhooks' | 'users' | 'scheduled_reports';

// Scheduled reports are capped on every plan, enterprise included: each one mails on its own.
export const RESOURCE_LIMITS: Readonly<Record<PlanName, Readonly<Record<LimitedResource, number | null>>>> = {
  free: { agents: 2, assets: 50, maintenance_plans: 10, webhooks: 2, users: 3, scheduled_reports: 3 },
  starter: { agents: 10, assets: 500, maintenance_plans: 100, webhooks: 10, users: 15, scheduled_reports: 20 },
  professional: { agents: 50, assets: 5000, maintenance_plans: 1000, webhooks: 50, users: 100, scheduled_reports: 100 },
  enterprise: { agents: null, assets: null, maintenance_plans: null, webhooks: null, users: null, scheduled_reports: 500 },
};

/**
 * Mail the platform's own sender carries for a tenant to outside addresses (addresses that are
 * not an active user of the tenant): per scheduled report, and per tenant and UTC day across all
 * its reports. Finite on every plan: an open relay is a relay whatever the tenant pays.
 */
export interface OutsideMailLimit {
  perSchedule: number;
  perDay: number;
}

export const OUTSIDE_MAIL_LIMITS: Readonly<Record<PlanName, OutsideMailLimit>> = {
  free: { perSchedule: 5, perDay: 20 },
  starter: { perSchedule: 20, perDay: 200 },
  professional: { perSchedule: 50, perDay: 1000 },
  enterprise: { perSchedule: 50, perDay: 5000 },
};

const MiB = 1024 * 1024;
/** The largest file one upload may store (POST /api/v1/files answers 413 above it). */
export const MAX_UPLOAD_BYTES: Readonly<Record<PlanName, number>> = {
  free: 10 * MiB,
  starter: 50 * MiB,
  professional: 200 * MiB,
  enterprise: 1024 * MiB,
};

/**
 * The language models an agent may name on each plan, besides `built-in` (the deterministic
 * engine, on every plan): the platform's provider key pays for every call, so a tenant names only
 * what its plan includes. LLM_PLAN_MODELS replaces a plan's list (infra/config.ts), for a provider
 * whose models have other names. Checked when an agent is created or changed, and again before each
 * call (an agent stored under an older list, or before the tenant's plan went down).
 */
export type PlanModels = Readonly<Record<PlanName, readonly string[]>>;
export const BUILT_IN_MODEL = 'built-in';

export const DEFAULT_PLAN_MODELS: PlanModels = {
  free: [],
  starter: ['gpt-4o-mini'],
  professional: ['gpt-4o-mini', 'gpt-4.1-mini'],
  enterprise: ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4.1'],
};

/** Whether an agent of a tenant on `plan` may use `model`. */
export function planAllowsModel(models: PlanModels, plan: PlanName, model: string): boolean {
  return model === BUILT_IN_MODEL || models[plan].includes(model);
}

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}
