/**
 * The built-in, deterministic engine that answers a conversation message (DESIGN.md, Language
 * models): it recognises a few intents, decides which of the agent's tools to call, and writes
 * the reply from the tools' results. Two pure steps, so the activity in between can run the tools:
 *   planReply(text, tools)          -> the intent and the tool calls to make
 *   composeReply(plan, results,...) -> the reply text
 * Pure: no I/O, no clock.
 */
import type { BuiltInTool } from './tool-parameters';

/** A tool of the agent, as the engine sees it. */
export type AgentTool =
  | { id: string; name: string; kind: 'built_in'; builtin: BuiltInTool; parameters: Record<string, unknown> }
  | { id: string; name: string; kind: 'http'; url: string; parameters: Record<string, unknown> };

export type Priority = 'low' | 'medium' | 'high' | 'critical';

export interface PlannedCall {
  tool: AgentTool;
  arguments: Record<string, unknown>;
}

export type ReplyPlan =
  | { intent: 'greeting' }
  | { intent: 'asset_health'; assetRef: string | null; call: PlannedCall | null }
  | { intent: 'work_order'; assetRef: string | null; call: PlannedCall | null }
  | { intent: 'http_tool'; call: PlannedCall }
  | { intent: 'fallback' };

/** What a tool call gave back: a JSON result, or a failure the reply should admit. */
export type ToolOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: string };

const GREETING = /^\s*(hi|hello|hey|hola|good (morning|afternoon|evening)|greetings)\b/i;
const WORK_ORDER = /\b(work ?order|broken|leak(s|ing)?|not working|stopped|fault(y)?|failure|failed|repair|fix|overheat(s|ing)?|create (a |an )?(task|ticket))\b/i;
const HEALTH = /\b(how is|how's|how are|health|status|condition|check on|check)\b/i;
const URGENT = /\b(urgent|asap|emergency|leak(s|ing)?|broken|stopped|fire|smoke)\b/i;
// Asset references: tags and serial numbers (a token with letters and digits, e.g. P-101, SN4411A).
// Tokens are scanned once each and checked in code: a lookahead over the rest of the token at
// every word start made "a-a-a-..." quadratic.
const TOKEN = /\b[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b/g;
const HEALTH_PHRASE = /\b(?:how is|how's|how are|health of|status of|condition of|check on|check)\s+(?:the\s+|our\s+|my\s+)?([^\s?.!,][^?.!,\n]{1,59})/i;
const BROKEN_PHRASE = /(?:^\s*|\b(?:the|our|my)\s+)([^\s?.!,][^?.!,\n]{1,59}?)\s+(?:is|are|has|keeps)\s+(?:broken|leaking|not working|stopped|faulty|overheating|failing)/i;
const STOP_WORDS = /\b(doing|today|now|please|going|working|running)\b/gi;

/** The first token with both letters and digits (P-101, SN4411A), or undefined. */
function codeToken(text: string): string | undefined {
  for (const [token] of text.matchAll(TOKEN)) if (/\d/.test(token) && /[A-Za-z]/.test(token)) return token;
  return undefined;
}

/** The asset a message names: a tag or serial number first, else the phrase after "how is" / before "is leaking". */
export function assetReference(text: string): string | null {
  const code = codeToken(text);
  if (code) return code;
  const phrase = HEALTH_PHRASE.exec(text)?.[1] ?? BROKEN_PHRASE.exec(text)?.[1];
  const cleaned = phrase
    ?.replace(STOP_WORDS, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(the|our|my|a|an)\s+/i, '');
  return cleaned && cleaned.length >= 2 ? cleaned : null;
}

const builtIn = (tools: readonly AgentTool[], which: BuiltInTool) =>
  tools.find((t): t is Extract<AgentTool, { kind: 'built_in' }> => t.kind === 'built_in' && t.builtin === which) ?? null;

/** An http tool is called when every word of its snake_case name appears in the message. */
function matchingHttpTool(text: string, tools: readonly AgentTool[]): Extract<AgentTool, { kind: 'http' }> | null {
  const words = new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  return tools.find((t): t is Extract<AgentTool, { kind: 'http' }> => t.kind === 'http' && t.name.split('_').every((w) => w.length > 0 && words.has(w))) ?? null;
}

/** Arguments of an http tool: its free-text property (`query`, `text` or `message`) gets the message. */
function httpArguments(tool: AgentTool, text: string): Record<string, unknown> {
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: string }>;
  const field = ['query', 'text', 'message'].find((name) => properties[name]?.type === 'string');
  return field ? { [field]: text } : {};
}

/**
 * How much of a message the engine reads: intents and asset names come first, and the rest of a
 * 10 MiB mail would only cost the worker (an http tool still gets the whole message).
 */
export const ENGINE_READS_CHARS = 10_000;

export function planReply(message: string, tools: readonly AgentTool[]): ReplyPlan {
  const text = message.slice(0, ENGINE_READS_CHARS);
  const http = matchingHttpTool(text, tools);
  if (http) return { intent: 'http_tool', call: { tool: http, arguments: httpArguments(http, message) } };
  const assetRef = assetReference(text);
  if (WORK_ORDER.test(text)) {
    const tool = builtIn(tools, 'create_maintenance_task');
    const priority: Priority = URGENT.test(text) ? 'high' : 'medium';
    return { intent: 'work_order', assetRef, call: tool && assetRef ? { tool, arguments: { asset: assetRef, priority } } : null };
  }
  if (HEALTH.test(text) && assetRef) {
    const tool = builtIn(tools, 'get_asset_health');
    return { intent: 'asset_health', assetRef, call: tool ? { tool, arguments: { asset: assetRef } } : null };
  }
  if (GREETING.test(text)) return { intent: 'greeting' };
  return { intent: 'fallback' };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** Capabilities the agent can offer, for greetings and fallbacks. */
function capabilities(tools: readonly AgentTool[]): string {
  const can: string[] = [];
  if (builtIn(tools, 'get_asset_health')) can.push('check the health of an asset (e.g. "how is pump P-101?")');
  if (builtIn(tools, 'create_maintenance_task')) can.push('open a work order (e.g. "pump P-101 is leaking")');
  return can.length > 0 ? `I can ${can.join(' or ')}.` : 'A colleague will follow up on your message.';
}

function healthText(result: Record<string, unknown>): string {
  const name = str(result.asset_name) ?? 'The asset';
  if (result.health_score === null || result.health_score === undefined) return `${name} has no health data yet.`;
  const status = str(result.status) ?? 'unknown';
  const alerts = typeof result.open_alerts === 'number' ? result.open_alerts : 0;
  const alertText = alerts === 0 ? 'no open alerts' : `${alerts} open alert${alerts === 1 ? '' : 's'}`;
  return `${name} is ${status} with a health score of ${result.health_score as number}/100 and ${alertText}.`;
}

/**
 * The reply to a plan once its call (if any) has run. `agentName` only introduces the agent in a
 * greeting; nothing of the user's message is echoed except the asset reference.
 */
export function composeReply(plan: ReplyPlan, outcome: ToolOutcome | null, agentName: string, tools: readonly AgentTool[]): string {
  switch (plan.intent) {
    case 'greeting':
      return `Hello! I'm ${agentName}. ${capabilities(tools)}`;
    case 'fallback':
      return `Thanks for your message. ${capabilities(tools)}`;
    case 'asset_health':
      if (!plan.call) return "I can't look up asset health here; a colleague will follow up.";
      if (!outcome?.ok) return `I could not find an asset matching "${plan.assetRef}". Could you send its name or serial number?`;
      return healthText(outcome.result);
    case 'work_order':
      if (!plan.assetRef) return 'Which asset is it? Please send its name or serial number and I will open a work order.';
      if (!plan.call) return 'Thanks for reporting it. A colleague will open a work order.';
      if (!outcome?.ok) return `I could not find an asset matching "${plan.assetRef}". Could you send its name or serial number?`;
      return `I opened work order ${str(outcome.result.task_code) ?? ''} (${str(outcome.result.priority) ?? 'medium'} priority) for ${str(outcome.result.asset_name) ?? 'the asset'}. A technician will take it from here.`.replace(
        '  ',
        ' ',
      );
    case 'http_tool':
      if (!outcome?.ok) return `I could not reach ${plan.call.tool.name} just now; a colleague will follow up.`;
      return `Here is what ${plan.call.tool.name} returned: ${JSON.stringify(outcome.result).slice(0, 500)}`;
  }
}
