/**
 * The event types the service emits (SPEC.md leaves the catalogue open; this is ours). Webhook
 * subscriptions may name any valid type or pattern (domain/webhooks/matching.ts), so a type added
 * by a feature works before it is listed here; listing it documents it and lets ai-config suggest it.
 * Pure: imported by the API, the built-in ai-config engine and the docs.
 */
export interface EventTypeInfo {
  readonly type: string;
  readonly description: string;
  /** Fields of `data` that identify what the event is about (usable as webhook filters). */
  readonly dataFields: readonly string[];
  /**
   * Earlier names of the same event, still honoured by webhook subscriptions and machine-agent
   * triggers (an integration subscribed to one keeps receiving the event under its SPEC.md name).
   */
  readonly formerly?: readonly string[];
}

export const EVENT_CATALOGUE: readonly EventTypeInfo[] = [
  { type: 'asset.created', description: 'An asset was created.', dataFields: ['asset_id', 'type', 'parent_id'] },
  { type: 'asset.deleted', description: 'An asset was deleted.', dataFields: ['asset_id'] },
  { type: 'asset.alert.raised', description: 'A reading left its baseline tolerance: an alert was raised.', dataFields: ['alert_id', 'asset_id'] },
  { type: 'asset.alert.resolved', description: 'Readings returned inside the tolerance: the alert was resolved.', dataFields: ['alert_id', 'asset_id'] },
  // SPEC.md names `task.created`; the service emitted `maintenance.task.*` before, kept as aliases.
  { type: 'task.created', description: 'A maintenance task (work order) was created.', dataFields: ['task_id', 'plan_id', 'asset_id'], formerly: ['maintenance.task.created'] },
  { type: 'task.completed', description: 'A maintenance task was completed.', dataFields: ['task_id', 'plan_id', 'asset_id'], formerly: ['maintenance.task.completed'] },
  {
    type: 'task.overdue',
    description: 'A maintenance task passed its due time while open.',
    dataFields: ['task_id', 'plan_id', 'asset_id'],
    formerly: ['maintenance.task.overdue'],
  },
  { type: 'maintenance.plan.paused', description: 'A preventive maintenance plan was paused.', dataFields: ['plan_id'] },
  { type: 'maintenance.plan.resumed', description: 'A preventive maintenance plan was resumed.', dataFields: ['plan_id'] },
  { type: 'conversation.started', description: 'A conversation with an agent started.', dataFields: ['conversation_id', 'agent_id'] },
  { type: 'conversation.message.received', description: 'A message was received in a conversation.', dataFields: ['conversation_id', 'agent_id'] },
  { type: 'conversation.closed', description: 'A conversation was closed (idle for 24 hours, or by a person).', dataFields: ['conversation_id', 'agent_id'] },
  { type: 'extraction.completed', description: 'An AI extraction finished and its record was stored.', dataFields: ['extraction_id'] },
  { type: 'file.uploaded', description: 'A file was uploaded and stored.', dataFields: ['file_id', 'contact_id'] },
  { type: 'csat.response.received', description: 'A CSAT/NPS survey response was recorded.', dataFields: ['response_id', 'survey_id', 'conversation_id', 'agent_id'] },
  { type: 'report.completed', description: 'A report (on demand or scheduled) was generated and stored.', dataFields: ['report_id', 'report_type', 'scheduled_report_id'] },
  { type: 'webhook.failing', description: 'A webhook failed five attempts of a delivery and is now failing.', dataFields: ['webhook_id'] },
  { type: 'webhook.low_success_rate', description: 'A webhook delivered less than half of its attempts over 24 hours.', dataFields: ['webhook_id'] },
];

export const EVENT_TYPES: readonly string[] = EVENT_CATALOGUE.map((entry) => entry.type);

export function eventTypeInfo(type: string): EventTypeInfo | undefined {
  return EVENT_CATALOGUE.find((entry) => entry.type === type);
}

const NAMES_WITH_FORMER = new Map(EVENT_CATALOGUE.filter((e) => e.formerly).map((e) => [e.type, [e.type, ...e.formerly!]]));

/** Every name an emitted event answers to: its own, then its former names. */
export function namesOfEventType(type: string): readonly string[] {
  return NAMES_WITH_FORMER.get(type) ?? [type];
}

/** Does a list of event type names (a machine agent's trigger) name this event, by any of its names? */
export function listsEventType(listed: readonly string[], type: string): boolean {
  return namesOfEventType(type).some((name) => listed.includes(name));
}

/** Events about maintenance tasks themselves (an agent must not open a task because a task was opened). */
export function isTaskEvent(type: string): boolean {
  return namesOfEventType(type).some((name) => name.startsWith('task.') || name.startsWith('maintenance.task.'));
}
