/**
 * Every matcher that runs on text from outside (inbound mail and WhatsApp messages, documents,
 * model answers) takes time linear in its input (docs/SECURITY.md, Text matching): each is fed the
 * hostile corpus's runs (test/support/hostile-corpus/text.ts) at n and 4n characters, and its time
 * must grow about 4-fold (a quadratic one grows 16-fold), within an absolute budget that a loaded
 * 2-core machine meets.
 */
import { assetReference, planReply } from '../../domain/agents/reply-engine';
import { headersOfLines, noReplyReason } from '../../domain/agents/auto-reply-policy';
import { parseScoreReply } from '../../domain/csat/reply';
import { extractBuiltIn } from '../../domain/extraction/builtin';
import { findDates, findIdentifiers, findNumbers } from '../../domain/extraction/values';
import { labelWindows } from '../../domain/extraction/labels';
import { findCreditCards } from '../../domain/privacy/detectors/credit-card';
import { findEmails } from '../../domain/privacy/detectors/email';
import { DEFAULT_ID_FORMATS, findIdNumbers } from '../../domain/privacy/detectors/id-number';
import { maskNonPhoneNumerals } from '../../domain/privacy/detectors/non-phone-numerals';
import { findPhones } from '../../domain/privacy/detectors/phone';
import { redactPii } from '../../domain/privacy/pii';
import { suggestionFromModel } from '../../domain/webhooks/ai-config';
import { INVOICE_FIELDS } from '../fixtures/extraction/templates';
import { PATHOLOGICAL_RUNS } from '../support/hostile-corpus/text';

jest.setTimeout(300_000);

const N = 25_000;
/** Below this a run is too fast for its ratio to mean anything (timer and GC noise). */
const NOISE_FLOOR_MS = 50;
/** 4x the input: linear is ~4, quadratic 16; the margin is for a loaded machine (and the collector, whose work grows with the live heap). */
const MAX_GROWTH = 12;
/** 100 000 characters of any run, on a loaded 2-core CI machine. */
const BUDGET_MS = 1_500;

const MATCHERS: Readonly<Record<string, (text: string) => unknown>> = {
  ...Object.fromEntries(DEFAULT_ID_FORMATS.map((format) => [`id_number:${format.name}`, (text: string) => findIdNumbers(text, [format])])),
  email: findEmails,
  phone: findPhones,
  credit_card: (text) => findCreditCards(text, { requireKnownIin: true }),
  non_phone_numerals: maskNonPhoneNumerals,
  redactPii: (text) => redactPii(text),
  reply_engine: (text) => [assetReference(text), planReply(text, [])],
  code_token: assetReference,
  csat_reply: (text) => parseScoreReply(text, 'nps_10'),
  mail_headers: (text) => noReplyReason(headersOfLines([{ key: 'authentication-results', line: `Authentication-Results: ${text}` }]), 'a@b.c'),
  extraction: (text) => [extractBuiltIn(INVOICE_FIELDS, text), findDates(text), findNumbers(text), findIdentifiers(text), labelWindows(text, ['invoice number', 'total'])],
  model_answer: suggestionFromModel,
};

function bestMs(run: () => unknown, tries = 3): number {
  let best = Infinity;
  for (let i = 0; i < tries; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Time at 4n over time at n (1 when both are under the noise floor). */
function growth(match: (text: string) => unknown, small: string, large: string): { growth: number; largeMs: number } {
  const smallMs = bestMs(() => match(small));
  const largeMs = bestMs(() => match(large));
  return { growth: largeMs < NOISE_FLOOR_MS ? 1 : largeMs / Math.max(smallMs, 1), largeMs };
}

describe.each(Object.entries(MATCHERS))('%s on hostile runs', (_name, match) => {
  it.each(Object.keys(PATHOLOGICAL_RUNS))('%s: linear growth, within budget', (run) => {
    const generate = PATHOLOGICAL_RUNS[run]!;
    const [small, large] = [generate(N), generate(4 * N)];
    let measured = growth(match, small, large);
    // Another process's burst can land on one measurement; a super-linear matcher fails both.
    if (measured.growth >= MAX_GROWTH || measured.largeMs >= BUDGET_MS) measured = growth(match, small, large);
    expect(measured.largeMs).toBeLessThan(BUDGET_MS);
    expect(measured.growth).toBeLessThan(MAX_GROWTH);
  });
});

/** The lookbehinds of a pattern's source whose content repeats without bound (`*`, `+`, `{n,}`). */
function unboundedLookbehinds(source: string): string[] {
  const found: string[] = [];
  for (let open = source.indexOf('(?<'); open >= 0; open = source.indexOf('(?<', open + 1)) {
    if (source[open + 3] !== '=' && source[open + 3] !== '!') continue; // a named group
    let depth = 0;
    let inClass = false;
    let unbounded = false;
    let i = open;
    for (; i < source.length; i++) {
      const ch = source[i];
      if (ch === '\\') {
        i += 1;
        continue;
      }
      if (inClass) {
        if (ch === ']') inClass = false;
        continue;
      }
      if (ch === '[') inClass = true;
      else if (ch === '(') depth += 1;
      else if (ch === ')' && --depth === 0) break;
      else if (ch === '*' || ch === '+' || (ch === '{' && /^\{\d+,\}/.test(source.slice(i)))) unbounded = true;
    }
    if (unbounded) found.push(source.slice(open, i + 1));
  }
  return found;
}

describe('identifier formats', () => {
  it.each(DEFAULT_ID_FORMATS.map((f) => [f.name, f] as const))('%s: no lookbehind repeats without bound (a label is checked in code)', (_name, format) => {
    expect(unboundedLookbehinds(format.pattern.source)).toEqual([]);
  });

  it('the check itself sees an unbounded lookbehind', () => {
    expect(unboundedLookbehinds(String.raw`(?<=(?<![\p{L}])CPF\s*[:#]?)\d{11}|(?<![a-z])x`)).toEqual([String.raw`(?<=(?<![\p{L}])CPF\s*[:#]?)`]);
  });
});
