/**
 * Which webhooks an event goes to: event type patterns and payload filters. Pure and free of
 * Node modules (the dispatcher, the API validators and workflows may all import it).
 *
 * - An event type is dotted lower-case `<domain>.<event>`, two segments or more
 *   (`task.created`, `maintenance.task.created`, `vibration.threshold_exceeded`).
 * - A subscription pattern is an exact type, `<prefix>.*` (every type under that prefix, one or
 *   more further segments, split on dots: `maintenance.*` matches `maintenance.task.created`
 *   but not `maintenance_x.y`), or `*` alone (every type). `*` is allowed only as the whole
 *   last segment.
 * - Filters are exact-match conditions on the canonical payload, all of which must hold; a key
 *   is a dotted path starting at `data`, a value is one allowed scalar or a non-empty array of
 *   allowed scalars (any of them). A missing field or a non-scalar field never matches.
 */
import { namesOfEventType } from '../events/catalogue';

const SEGMENT = '[a-z][a-z0-9_]*';
const EVENT_TYPE = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})+$`);
const PREFIX_PATTERN = new RegExp(`^(${SEGMENT}(?:\\.${SEGMENT})*)\\.\\*$`);
const FILTER_PATH = /^data(?:\.[A-Za-z0-9_-]+)+$/;

export const MAX_EVENT_TYPE_LENGTH = 100;
export const MAX_EVENT_PATTERNS = 100;
export const MAX_FILTER_KEYS = 20;
export const MAX_FILTER_VALUES = 100;
export const MAX_FILTER_STRING_LENGTH = 500;

export type EventPattern =
  | { kind: 'all' }
  | { kind: 'exact'; type: string }
  /** Matches types that start with `${prefix}.`. */
  | { kind: 'prefix'; prefix: string };

export type FilterScalar = string | number | boolean | null;
export type FilterCondition = FilterScalar | readonly FilterScalar[];
export type WebhookFilters = Readonly<Record<string, FilterCondition>>;

export interface Subscription {
  readonly events: readonly string[];
  readonly filters: WebhookFilters;
}

/** The part of an event (or canonical payload) that matching looks at. */
export interface MatchableEvent {
  readonly type: string;
  readonly data: unknown;
}

/** A validation problem; `path` names the offending field, for the API's 422 `fields` list. */
export interface ValidationIssue {
  path: string;
  message: string;
}

export function isValidEventType(type: string): boolean {
  return type.length <= MAX_EVENT_TYPE_LENGTH && EVENT_TYPE.test(type);
}

/** The pattern `text` denotes, or `undefined` when it is not a valid pattern. */
export function parseEventPattern(text: string): EventPattern | undefined {
  if (text.length > MAX_EVENT_TYPE_LENGTH) return undefined;
  if (text === '*') return { kind: 'all' };
  if (EVENT_TYPE.test(text)) return { kind: 'exact', type: text };
  const prefix = PREFIX_PATTERN.exec(text);
  return prefix ? { kind: 'prefix', prefix: prefix[1] } : undefined;
}

export function isValidEventPattern(text: string): boolean {
  return parseEventPattern(text) !== undefined;
}

export function patternMatches(pattern: string, eventType: string): boolean {
  const parsed = parseEventPattern(pattern);
  if (parsed === undefined) return false;
  switch (parsed.kind) {
    case 'all':
      return true;
    case 'exact':
      return parsed.type === eventType;
    case 'prefix':
      return eventType.startsWith(`${parsed.prefix}.`);
  }
}

/**
 * Every pattern that matches `eventType`: `*`, each `<prefix>.*` and the type itself. Lets the
 * dispatcher find subscribed webhooks with an indexed array overlap (`events && ?`) in SQL.
 */
export function patternsMatching(eventType: string): string[] {
  const patterns = namesOfEventType(eventType).flatMap((name) => {
    const segments = name.split('.');
    return [...segments.slice(0, -1).map((_, i) => `${segments.slice(0, i + 1).join('.')}.*`), name];
  });
  return ['*', ...new Set(patterns)];
}

export function validateEventPatterns(events: unknown, path = 'events'): ValidationIssue[] {
  if (!Array.isArray(events)) return [{ path, message: 'must be an array of event types or patterns' }];
  if (events.length === 0) return [{ path, message: 'must name at least one event type or pattern' }];
  if (events.length > MAX_EVENT_PATTERNS) return [{ path, message: `must have at most ${MAX_EVENT_PATTERNS} entries` }];
  return events.flatMap((event, i): ValidationIssue[] =>
    typeof event === 'string' && isValidEventPattern(event) ? [] : [{ path: `${path}[${i}]`, message: 'must be an event type like "task.created", "maintenance.*" or "*"' }],
  );
}

export function validateFilters(filters: unknown, path = 'filters'): ValidationIssue[] {
  if (!isPlainObject(filters)) return [{ path, message: 'must be an object of conditions' }];
  const entries = Object.entries(filters);
  if (entries.length > MAX_FILTER_KEYS) return [{ path, message: `must have at most ${MAX_FILTER_KEYS} conditions` }];
  return entries.flatMap(([key, condition]) => validateCondition(key, condition, `${path}.${key}`));
}

function validateCondition(key: string, condition: unknown, path: string): ValidationIssue[] {
  if (!FILTER_PATH.test(key)) {
    return [{ path, message: 'key must be a dotted path into the payload data, like "data.asset_id"' }];
  }
  if (!Array.isArray(condition)) {
    return isFilterScalar(condition) ? [] : [{ path, message: 'must be a string, number, boolean, null or an array of them' }];
  }
  if (condition.length === 0 || condition.length > MAX_FILTER_VALUES) {
    return [{ path, message: `must list from 1 to ${MAX_FILTER_VALUES} allowed values` }];
  }
  return condition.every(isFilterScalar) ? [] : [{ path, message: 'allowed values must be strings, numbers, booleans or null' }];
}

function isFilterScalar(value: unknown): value is FilterScalar {
  if (typeof value === 'string') return value.length <= MAX_FILTER_STRING_LENGTH;
  if (typeof value === 'number') return Number.isFinite(value);
  return value === null || typeof value === 'boolean';
}

/** True when every condition holds on `event` (an empty filter set always holds). */
export function filtersMatch(filters: WebhookFilters, event: MatchableEvent): boolean {
  return Object.entries(filters).every(([path, condition]) => {
    const found = valueAt(event, path.split('.'));
    if (!found.present || !isFilterScalar(found.value)) return false;
    const allowed: readonly FilterScalar[] = Array.isArray(condition) ? condition : [condition as FilterScalar];
    return allowed.some((value) => value === found.value);
  });
}

/** Does `subscription` want `event`? Status (active, paused...) is the caller's concern. */
export function matches(subscription: Subscription, event: MatchableEvent): boolean {
  return (
    // Former names count too: `maintenance.task.created` or `maintenance.*` still receive `task.created`.
    namesOfEventType(event.type).some((name) => subscription.events.some((pattern) => patternMatches(pattern, name))) && filtersMatch(subscription.filters, event)
  );
}

type Lookup = { present: true; value: unknown } | { present: false };

function valueAt(root: unknown, segments: readonly string[]): Lookup {
  let current: unknown = root;
  for (const segment of segments) {
    // Own properties only, so "constructor" or "__proto__" never reach the prototype.
    if (!isPlainObject(current) || !Object.prototype.hasOwnProperty.call(current, segment)) return { present: false };
    current = current[segment];
  }
  return { present: true, value: current };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
