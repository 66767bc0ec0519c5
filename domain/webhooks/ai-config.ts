/**
 * The built-in engine of `POST /integrations/webhooks/ai-config`: turns a free-text use case into a
 * draft webhook configuration by matching it against the event catalogue, deterministically (no
 * model: the API labels its answers `engine: "built-in"`). Each catalogue type has subject words
 * (what it is about) and action words (what happened); a type is suggested when both occur, and
 * every type of a subject when only the subject occurs. Ids written next to a subject become
 * filters on the payload field that carries them. When a language model is configured, the route
 * asks it instead (`aiConfigMessages`) and keeps its answer only if it is a valid configuration
 * (`suggestionFromModel`). Pure.
 */
import { EVENT_CATALOGUE } from '../events/catalogue';
import type { ChatMessage } from '../llm/provider';
import { API_VERSION } from './payload';
import { validateEventPatterns, validateFilters, type FilterCondition } from './matching';

export interface WebhookConfigSuggestion {
  events: string[];
  filters: Record<string, FilterCondition>;
  payload_format: { content_type: 'application/json'; api_version: string; envelope: string[]; example: Record<string, unknown> };
  auth_headers: Array<{ name: string; description: string }>;
  /** Why each suggested type was chosen: the words of the description that matched. */
  rationale: Array<{ event: string; matched: string[] }>;
  notes: string[];
}

interface Topic {
  subject: readonly string[];
  types: ReadonlyArray<{ type: string; actions: readonly string[] }>;
}

// Word stems: a word of the description matches a stem it starts with ("exceeded" ← "exceed").
const TOPICS: readonly Topic[] = [
  {
    subject: ['alert', 'alarm', 'anomal', 'threshold', 'excursion', 'vibration', 'temperature', 'baseline', 'tolerance'],
    types: [
      { type: 'asset.alert.raised', actions: ['rais', 'trigger', 'fire', 'exceed', 'breach', 'detect', 'new', 'open', 'creat', 'goes', 'above', 'outside', 'spike'] },
      { type: 'asset.alert.resolved', actions: ['resolv', 'clear', 'recover', 'normal', 'clos', 'back', 'return', 'end'] },
    ],
  },
  {
    subject: ['asset', 'equipment', 'machine', 'device', 'pump', 'motor', 'compressor'],
    types: [
      { type: 'asset.created', actions: ['creat', 'new', 'add', 'regist', 'onboard', 'install'] },
      { type: 'asset.deleted', actions: ['delet', 'remov', 'decommission', 'retir', 'scrap'] },
    ],
  },
  {
    subject: ['task', 'work order', 'workorder', 'work-order', 'job', 'ticket'],
    types: [
      { type: 'task.created', actions: ['creat', 'new', 'open', 'generat', 'assign', 'rais', 'issu'] },
      { type: 'task.completed', actions: ['complet', 'done', 'finish', 'clos', 'resolv', 'fix'] },
      { type: 'task.overdue', actions: ['overdue', 'late', 'miss', 'past due', 'delay', 'sla'] },
    ],
  },
  {
    subject: ['plan', 'preventive', 'pm schedule', 'maintenance schedule'],
    types: [
      { type: 'maintenance.plan.paused', actions: ['paus', 'suspend', 'stop', 'hold'] },
      { type: 'maintenance.plan.resumed', actions: ['resum', 'restart', 'unpaus', 'reactivat', 'continu'] },
    ],
  },
  {
    subject: ['conversation', 'chat', 'whatsapp', 'message', 'customer', 'contact'],
    types: [
      { type: 'conversation.started', actions: ['start', 'new', 'open', 'begin', 'initiat'] },
      { type: 'conversation.message.received', actions: ['message', 'receiv', 'inbound', 'incoming', 'repl', 'writes', 'sends'] },
    ],
  },
  {
    subject: ['extraction', 'extract', 'document', 'invoice', 'pdf', 'ocr', 'form'],
    types: [{ type: 'extraction.completed', actions: ['complet', 'done', 'finish', 'ready', 'process', 'extract', 'parsed'] }],
  },
  {
    subject: ['webhook', 'integration', 'endpoint', 'delivery', 'deliveries'],
    types: [
      { type: 'webhook.failing', actions: ['fail', 'error', 'down', 'broken', 'unreachable'] },
      { type: 'webhook.low_success_rate', actions: ['success rate', 'low', 'degrad', 'unreliab', 'flaky'] },
    ],
  },
];

const TRIGGER = /\b(?:when|whenever|once|if|each time|every time|as soon as|after)\b/;
const EVERYTHING = ['all events', 'every event', 'any event', 'everything'];
const ALL_WORDS = ['all', 'every', 'any'];
const ENTITY_FIELDS: Readonly<Record<string, string>> = {
  asset: 'asset_id',
  machine: 'asset_id',
  equipment: 'asset_id',
  plan: 'plan_id',
  task: 'task_id',
  agent: 'agent_id',
  webhook: 'webhook_id',
};
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ENTITY_ID = new RegExp(`\\b(${Object.keys(ENTITY_FIELDS).join('|')})s?\\b[^0-9a-z]{0,3}(?:id\\b[^0-9a-z]{0,3})?(${UUID})`, 'g');

export const MAX_DESCRIPTION_LENGTH = 2_000;

export function suggestWebhookConfig(description: string): WebhookConfigSuggestion {
  const text = ` ${description.toLowerCase().replace(/\s+/g, ' ')} `;
  // The event is what follows "when"/"whenever"...: in "create a ticket whenever a task is
  // overdue", "create a ticket" is the receiver's business. And "on asset <id>" names what to
  // filter on, not a topic: it must not suggest asset.created.
  const trigger = TRIGGER.exec(text);
  const topicText = (trigger ? text.slice(trigger.index) : text).replace(ENTITY_ID, ' ');
  const words = topicText.split(/[^a-z0-9_'-]+/).filter(Boolean);
  const found = (stem: string) => (stem.includes(' ') ? topicText.includes(` ${stem}`) : words.some((word) => word.startsWith(stem)));
  const notes: string[] = [];

  const rationale: Array<{ event: string; matched: string[] }> = [];
  for (const topic of TOPICS) {
    const subjects = topic.subject.filter(found);
    if (subjects.length === 0) continue;
    const withAction = topic.types.map((t) => ({ type: t.type, actions: t.actions.filter(found) })).filter((t) => t.actions.length > 0);
    const chosen = withAction.length > 0 ? withAction : topic.types.map((t) => ({ type: t.type, actions: [] as string[] }));
    for (const { type, actions } of chosen) {
      if (!rationale.some((r) => r.event === type)) rationale.push({ event: type, matched: [...subjects, ...actions] });
    }
  }

  let events = rationale.map((r) => r.event);
  if (events.length === 0 && EVERYTHING.some(found)) {
    events = ['*'];
    rationale.push({ event: '*', matched: EVERYTHING.filter(found) });
  } else if (ALL_WORDS.some(found)) {
    events = compactToWildcards(events);
  }
  if (events.length === 0) {
    notes.push(`No event type of the catalogue matched the description; choose from: ${EVENT_CATALOGUE.map((e) => e.type).join(', ')}.`);
  }

  return withFormat(events, suggestFilters(text, events, notes), rationale, notes);
}

/** The parts of a suggestion that are facts of this service, whoever chose the events. */
function withFormat(events: string[], filters: Record<string, FilterCondition>, rationale: WebhookConfigSuggestion['rationale'], notes: string[]): WebhookConfigSuggestion {
  return {
    events,
    filters,
    payload_format: {
      content_type: 'application/json',
      api_version: API_VERSION,
      envelope: ['id', 'type', 'tenant_id', 'occurred_at', 'api_version', 'data'],
      example: {
        id: '<event id>',
        type: events.find((e) => !e.includes('*')) ?? 'asset.alert.raised',
        tenant_id: '<tenant id>',
        occurred_at: '2025-03-01T12:00:00.000Z',
        api_version: API_VERSION,
        data: {},
      },
    },
    auth_headers: [
      { name: 'X-Signature', description: 'sha256=<hex HMAC-SHA256(key, "<timestamp>.<raw body>")>; key = base64-decoded secret after "whsec_"' },
      { name: 'X-Signature-Timestamp', description: 'Unix seconds when the attempt was sent; reject values more than 5 minutes from your clock' },
      { name: 'X-Webhook-Id', description: 'Delivery id, the same for every attempt of a delivery: deduplicate on it' },
      { name: 'webhook-id', description: 'Standard Webhooks: delivery id' },
      { name: 'webhook-timestamp', description: 'Standard Webhooks: unix seconds' },
      { name: 'webhook-signature', description: 'Standard Webhooks: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>; verify with any Standard Webhooks library' },
    ],
    rationale,
    notes,
  };
}

/** The request to a language model: the catalogue, the rules, and the user's description. */
export function aiConfigMessages(description: string): ChatMessage[] {
  const catalogue = EVENT_CATALOGUE.map((e) => `- ${e.type}: ${e.description} data fields: ${e.dataFields.join(', ')}`).join('\n');
  return [
    {
      role: 'system',
      content:
        'You configure outbound webhooks of an industrial operations service. Choose the events to subscribe to from this catalogue only:\n' +
        `${catalogue}\n` +
        'An entry of "events" is a type of the catalogue, a prefix pattern like "maintenance.*", or "*". ' +
        '"filters" maps "data.<field>" to one value or a list of allowed values (exact match); use it only for ids or values the user names. ' +
        'Answer with one JSON object and nothing else: {"events": [...], "filters": {...}, "rationale": "<one sentence>"}.',
    },
    { role: 'user', content: description },
  ];
}

/** The model's answer as a suggestion, or undefined when it is not a valid configuration. */
export function suggestionFromModel(text: string): WebhookConfigSuggestion | undefined {
  // From the first "{" to the last "}" (what a greedy /\{[\s\S]*\}/ took, without its quadratic retries).
  const unfenced = text.replace(/```(?:json)?/g, '');
  const [first, last] = [unfenced.indexOf('{'), unfenced.lastIndexOf('}')];
  const json = first >= 0 && last > first ? unfenced.slice(first, last + 1) : undefined;
  let answer: { events?: unknown; filters?: unknown; rationale?: unknown };
  try {
    answer = JSON.parse(json ?? '') as typeof answer;
  } catch {
    return undefined;
  }
  const filters = answer.filters ?? {};
  if (validateEventPatterns(answer.events).length > 0 || validateFilters(filters).length > 0) return undefined;
  const events = answer.events as string[];
  const notes = typeof answer.rationale === 'string' ? [answer.rationale.slice(0, 1_000)] : [];
  return withFormat(
    events,
    filters as Record<string, FilterCondition>,
    events.map((event) => ({ event, matched: [] })),
    notes,
  );
}

/** Replaces every complete group of catalogue types sharing a prefix by `<prefix>.*`. */
function compactToWildcards(events: string[]): string[] {
  const chosen = new Set(events);
  const prefixes = [...new Set(EVENT_CATALOGUE.flatMap((e) => prefixesOf(e.type)))].sort((a, b) => a.split('.').length - b.split('.').length);
  const result: string[] = [];
  const covered = new Set<string>();
  for (const prefix of prefixes) {
    const members = EVENT_CATALOGUE.map((e) => e.type).filter((t) => t.startsWith(`${prefix}.`));
    if (members.length > 1 && members.every((t) => chosen.has(t)) && !members.every((t) => covered.has(t))) {
      result.push(`${prefix}.*`);
      members.forEach((t) => covered.add(t));
    }
  }
  return [...result, ...events.filter((e) => !covered.has(e))];
}

function prefixesOf(type: string): string[] {
  const segments = type.split('.');
  return segments.slice(1).map((_, i) => segments.slice(0, i + 1).join('.'));
}

/** `asset 3f2a…` → `{"data.asset_id": "3f2a…"}` when every suggested type carries that field. */
function suggestFilters(text: string, events: string[], notes: string[]): Record<string, FilterCondition> {
  const ids = new Map<string, string[]>();
  for (const match of text.matchAll(ENTITY_ID)) {
    const field = ENTITY_FIELDS[match[1]];
    ids.set(field, [...new Set([...(ids.get(field) ?? []), match[2]])]);
  }
  const filters: Record<string, FilterCondition> = {};
  for (const [field, values] of ids) {
    const carried = events.length > 0 && events.every((e) => typesOf(e).every((t) => EVENT_CATALOGUE.find((c) => c.type === t)?.dataFields.includes(field)));
    if (carried) filters[`data.${field}`] = values.length === 1 ? values[0] : values;
    else notes.push(`Not every suggested event carries data.${field}, so no filter on it was suggested.`);
  }
  return filters;
}

function typesOf(pattern: string): string[] {
  if (pattern === '*') return EVENT_CATALOGUE.map((e) => e.type);
  if (pattern.endsWith('.*')) return EVENT_CATALOGUE.map((e) => e.type).filter((t) => t.startsWith(pattern.slice(0, -1)));
  return [pattern];
}
