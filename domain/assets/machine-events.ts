/**
 * Machine events from the gateway become outbox events of their own type (so machine agents'
 * `trigger_config.event_types`, e.g. `vibration.threshold_exceeded`, and webhooks can react). A
 * machine must not forge the service's own events, so the domains the service emits are reserved.
 */
export const RESERVED_EVENT_DOMAINS: readonly string[] = [
  'agent',
  'asset',
  'audit',
  'auth',
  'conversation',
  'csat',
  'extraction',
  'maintenance',
  'privacy',
  'report',
  'task',
  'tenant',
  'user',
  'webhook',
];

/** `<domain>.<event>`, lower case, digits and underscores, at least two segments. */
export const MACHINE_EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

export function isReservedEventType(type: string): boolean {
  return RESERVED_EVENT_DOMAINS.includes(type.split('.')[0] as string);
}
