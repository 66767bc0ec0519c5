/**
 * Path ids (`:xxx_id`) name records, and every record id is a UUID. A segment that is not one
 * names no record of that route: the request belongs to another route of the same path (405 when
 * that route lacks the method) or to none (404). Shared by the router's check (api/route.ts) and
 * the 405 rule (api/middleware/method-not-allowed.ts).
 */
import { isUuid } from '../domain/ids';

/** The `:xxx_id` segments of a route path. */
export function pathIdNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+_id)\b/g)].map((m) => m[1]!);
}

/** The first path id of `params` that is not a UUID, if any. */
export function malformedPathId(params: Readonly<Record<string, string | undefined>>): string | undefined {
  return Object.entries(params).find(([name, value]) => name.endsWith('_id') && !isUuid(value ?? ''))?.[0];
}

/** `asset_id` → `asset` (for "asset not found"). */
export const recordNameOf = (idName: string) => idName.slice(0, -3).replace(/_/g, ' ');
