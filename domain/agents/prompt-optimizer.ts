/**
 * The built-in prompt optimizer (issue 7; DESIGN.md, Language models): rule-based checks of a
 * system prompt, each explained, and a suggested prompt that adds what a failed check found
 * missing. Pure and deterministic: the same input always gives the same answer, and nothing here
 * pretends to be a model.
 */
import type { AgentType } from './agents';

export const PROMPT_CHECK_IDS = ['role', 'constraints', 'output_format', 'tone', 'language', 'safety', 'length'] as const;
export type PromptCheckId = (typeof PROMPT_CHECK_IDS)[number];

export interface PromptCheck {
  id: PromptCheckId;
  passed: boolean;
  /** What the check looks for, and what it found. */
  detail: string;
}

/** One edit the suggested prompt makes, and why. */
export type PromptChange = { check: PromptCheckId; action: 'added'; text: string; why: string } | { check: PromptCheckId; action: 'removed'; text: string; why: string };

export interface PromptOptimization {
  suggestedPrompt: string;
  changes: PromptChange[];
  checks: PromptCheck[];
}

export interface PromptOptimizationInput {
  systemPrompt: string;
  agentType?: AgentType;
  /** BCP 47 language tag (`es`, `pt-BR`) of the replies; unset: the user's language. */
  language?: string;
}

/** Fewer words than this and a model has too little to go on; more and it starts ignoring parts. */
export const MIN_PROMPT_WORDS = 15;
export const MAX_PROMPT_WORDS = 1_500;

const ROLE = /\b(you are|you're|your role|your job|act as|acting as|as an? [a-z]+ (assistant|agent|technician|engineer|expert))\b/i;
const CONSTRAINTS = /\b(do not|don't|never|must not|mustn't|only|avoid|refuse|limit yourself)\b/i;
const OUTPUT_FORMAT =
  /\b(format|bullet|json|markdown|numbered|table|list of|respond with|reply with|answer with|in \d+ (sentences|words|lines)|at most \d+|no more than \d+|subject line)\b/i;
const TONE = /\b(tone|polite|friendly|professional|formal|informal|courteous|concise|empathetic|calm|plain language)\b/i;
const LANGUAGE = /\b(language|in english|in spanish|in german|in french|in portuguese|in italian)\b/i;
const SAFETY = /\b(safety|safe|hazard|emergency|escalat\w*|lockout|tagout|loto|injur\w*|supervisor|human operator|stop work)\b/i;

const ROLE_BY_TYPE: Record<AgentType | 'generic', string> = {
  whatsapp: 'You are the WhatsApp assistant of an industrial operations team: you answer technicians and customers about assets, alarms and maintenance work.',
  email: 'You are the e-mail assistant of an industrial operations team: you answer messages about assets, alarms and maintenance work.',
  machine: 'You are a machine-monitoring agent: you read machine events (alarms, readings, health changes) and decide what the maintenance team must know or do.',
  generic: 'You are an assistant of an industrial operations team: you help with assets, alarms and maintenance work.',
};

const FORMAT_BY_TYPE: Record<AgentType | 'generic', string> = {
  whatsapp: 'Output format: plain text for a phone screen, at most 3 short sentences; use a numbered list only for steps.',
  email: 'Output format: a greeting, a short answer in paragraphs, the next steps as a numbered list when there are any, and a sign-off with the team name.',
  machine: 'Output format: one summary line naming the asset and the event, then the severity (low, medium, high), then one recommended action.',
  generic: 'Output format: a direct answer first, then the details as a short numbered list when there are steps.',
};

const CONSTRAINTS_TEXT =
  'Constraints: answer only about the assets, alarms and maintenance work of this organisation; never invent readings, asset names or task numbers you were not given; say so when you do not know.';
const TONE_TEXT = 'Tone: professional, calm and concise; plain language, no jargon the reader did not use first.';
const SAFETY_TEXT =
  'Safety: never advise bypassing interlocks, guards, lockout/tagout or protective equipment; for an injury, fire, leak, smoke or any hazard, tell the person to stop work, follow the site emergency procedure and escalate to a human supervisor at once.';

function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** Lines that repeat an earlier line word for word (case and spacing aside) are dropped. */
function withoutRepeatedLines(text: string): { text: string; removed: string[] } {
  const seen = new Set<string>();
  const removed: string[] = [];
  const kept = text.split('\n').filter((line) => {
    const key = line.trim().replace(/\s+/g, ' ').toLowerCase();
    if (key === '') return true;
    if (seen.has(key)) {
      removed.push(line.trim());
      return false;
    }
    seen.add(key);
    return true;
  });
  return {
    text: kept
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    removed,
  };
}

export function optimizePrompt(input: PromptOptimizationInput): PromptOptimization {
  const kind = input.agentType ?? 'generic';
  const original = input.systemPrompt.replace(/\r\n?/g, '\n');
  const { text: body, removed } = withoutRepeatedLines(original);
  const checks: PromptCheck[] = [];
  const changes: PromptChange[] = [];
  const prefix: string[] = [];
  const suffix: string[] = [];

  const check = (id: PromptCheckId, passed: boolean, detail: string) => checks.push({ id, passed, detail });
  const add = (id: PromptCheckId, where: string[], text: string, why: string) => {
    where.push(text);
    changes.push({ check: id, action: 'added', text, why });
  };

  const hasRole = ROLE.test(body);
  check('role', hasRole, hasRole ? 'The prompt tells the model who it is.' : 'The prompt does not say who the model is ("You are ...").');
  if (!hasRole) add('role', prefix, ROLE_BY_TYPE[kind], 'A stated role anchors every answer: without one the model falls back to a generic assistant and drifts off the task.');

  const hasConstraints = CONSTRAINTS.test(body);
  check('constraints', hasConstraints, hasConstraints ? 'The prompt states limits (only/never/do not).' : 'The prompt sets no limits on what the model may say or do.');
  if (!hasConstraints) add('constraints', suffix, CONSTRAINTS_TEXT, 'Explicit limits keep the agent on its subject and stop it from inventing readings or task numbers.');

  const hasFormat = OUTPUT_FORMAT.test(body);
  check('output_format', hasFormat, hasFormat ? 'The prompt describes the shape of the answer.' : 'The prompt does not describe the shape or length of the answer.');
  if (!hasFormat) {
    add(
      'output_format',
      suffix,
      FORMAT_BY_TYPE[kind],
      `A fixed answer shape${input.agentType ? ` suited to a ${input.agentType} agent` : ''} makes replies predictable for the reader and for anything that parses them.`,
    );
  }

  const hasTone = TONE.test(body);
  check('tone', hasTone, hasTone ? 'The prompt sets a tone.' : 'The prompt does not set a tone.');
  if (!hasTone) add('tone', suffix, TONE_TEXT, 'Without a stated tone the register changes from answer to answer; operators under pressure need calm, short text.');

  const wanted = input.language ? languageName(input.language) : null;
  const namesWanted = wanted !== null && new RegExp(`\\b${wanted.replace(/[^A-Za-z ]/g, '.')}\\b`, 'i').test(body);
  const hasLanguage = wanted ? namesWanted : LANGUAGE.test(body);
  check(
    'language',
    hasLanguage,
    wanted
      ? hasLanguage
        ? `The prompt names the reply language (${wanted}).`
        : `The prompt does not ask for replies in ${wanted}.`
      : hasLanguage
        ? 'The prompt says which language to reply in.'
        : 'The prompt does not say which language to reply in.',
  );
  if (!hasLanguage) {
    if (wanted)
      add(
        'language',
        suffix,
        `Language: always reply in ${wanted}, whatever the language of the message.`,
        `The agent was declared to reply in ${wanted}; a model otherwise mirrors the language of each message.`,
      );
    else
      add(
        'language',
        suffix,
        "Language: reply in the language of the person's message.",
        'Stating the language rule avoids answers in English to people who wrote in another language.',
      );
  }

  const hasSafety = SAFETY.test(body);
  check('safety', hasSafety, hasSafety ? 'The prompt covers safety or escalation to a person.' : 'The prompt says nothing about hazards or escalation to a person.');
  if (!hasSafety)
    add('safety', suffix, SAFETY_TEXT, 'In an industrial setting a wrong answer can hurt someone: the agent must never help bypass protections and must hand hazards to a human.');

  const words = wordCount(body);
  const lengthOk = words >= MIN_PROMPT_WORDS && words <= MAX_PROMPT_WORDS && removed.length === 0;
  check(
    'length',
    lengthOk,
    words < MIN_PROMPT_WORDS
      ? `The prompt has ${words} words (under ${MIN_PROMPT_WORDS}): too little context; the added sections supply part of it, describe the site and its assets too.`
      : words > MAX_PROMPT_WORDS
        ? `The prompt has ${words} words (over ${MAX_PROMPT_WORDS}): models follow long prompts less reliably; shorten it.`
        : removed.length > 0
          ? `The prompt repeats ${removed.length} line(s) word for word.`
          : `The prompt has ${words} words.`,
  );
  for (const line of removed) {
    changes.push({ check: 'length', action: 'removed', text: line, why: 'This line repeats an earlier one word for word: repetition costs tokens and adds nothing.' });
  }

  const suggestedPrompt = [...prefix, body, ...suffix].filter((part) => part.length > 0).join('\n\n');
  return { suggestedPrompt, changes, checks };
}
