// How a condition plan's work orders turned out, for the optimizer's basis: a planner judges the
// limit and window by how many were followed by a corrective job, a failure or an alert on the
// same asset (confirmed) and how many were not (the false-alarm side).
import type { Instant } from './types';
import { toMs } from './instant';

/** A work order counts as confirmed when something happened on its asset within this many days after it. */
export const CONFIRMATION_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface ConditionWorkOrder {
  /** The asset of its evidence. */
  asset_id: string;
  created_at: Instant;
}

export interface AssetOccurrence {
  asset_id: string;
  occurred_at: Instant;
}

export interface ConditionOutcomes {
  window_days: number;
  /** Followed by a corrective job, failure or alert on the same asset within the window. */
  confirmed: number;
  /** Not followed by any within the window (the window has passed). */
  unconfirmed: number;
  /** Still within the window, nothing yet. */
  pending: number;
  /** unconfirmed / (confirmed + unconfirmed); null before any work order was judged. */
  false_alarm_rate: number | null;
}

export function conditionOutcomes(workOrders: readonly ConditionWorkOrder[], occurrences: readonly AssetOccurrence[], now: Instant): ConditionOutcomes {
  const windowMs = CONFIRMATION_WINDOW_DAYS * DAY_MS;
  let confirmed = 0;
  let unconfirmed = 0;
  let pending = 0;
  for (const wo of workOrders) {
    const from = toMs(wo.created_at);
    const followed = occurrences.some((o) => o.asset_id === wo.asset_id && toMs(o.occurred_at) > from && toMs(o.occurred_at) <= from + windowMs);
    if (followed) confirmed += 1;
    else if (toMs(now) - from >= windowMs) unconfirmed += 1;
    else pending += 1;
  }
  const judged = confirmed + unconfirmed;
  return { window_days: CONFIRMATION_WINDOW_DAYS, confirmed, unconfirmed, pending, false_alarm_rate: judged ? Number((unconfirmed / judged).toFixed(2)) : null };
}
