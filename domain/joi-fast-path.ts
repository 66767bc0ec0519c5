import type { Schema } from 'joi';
import { characters } from './joi';

/**
 * A Joi schema compiled, once, into plain functions that judge the values it can judge alone and
 * answer what Joi would: the same converted value (strings trimmed, ISO dates parsed, -0 as 0).
 * Anything else (an error, a conversion Joi would make such as "12" into 12, a rule or flag not
 * known here) answers "not sure", and Joi judges the value as before, so its messages, the
 * OpenAPI document generated from the same schemas and the fuzzer's view of them do not change.
 * Why: Joi's walk of a gateway batch (500 readings, 7 fields each) took 2.9 ms of CPU, about a
 * quarter of what the ingest costs beyond its same-work floor; this judges it in a fraction of
 * that (docs/decisions/validation-fast-path.md).
 *
 * Known: object (declared keys only; a key whose schema is not known here answers "not sure" when
 * sent, so an optional filter never sent costs nothing), array (one item schema, min/max), string
 * (trim, the project's minChars/maxChars of domain/joi.ts, pattern), number (integer, min, max; a
 * query's canonical integer string such as "20" converted as Joi converts it), date (format iso),
 * presence, a literal default, allow(null), valid(...) on strings, and `custom` rules, which are
 * called with helpers whose error answers "not sure". The equivalence with Joi is tested on mutated
 * bodies and queries (test/unit/domain/joi-fast-path.test.ts).
 *
 * It reads the schema through `describe()`, Joi's public description (the format `Joi.build()`
 * reads back), never its private fields, and it is closed: a description key, flag or rule it does
 * not know leaves the whole schema (or an optional key's) to Joi.
 */
export type FastPath = (value: unknown) => { value: unknown } | undefined;

/** Compiles `schema`, or null when it uses something not known here (Joi alone judges it). */
export function compileFastPath(schema: Schema): FastPath | null {
  const judge = compile(schema.describe() as Description);
  if (!judge) return null;
  return (value) => {
    const judged = judge(value);
    return judged === UNSURE ? undefined : { value: judged };
  };
}

const UNSURE = Symbol('unsure');
type Judge = (value: unknown) => unknown;

/** A schema as `describe()` writes it; what is read here is checked, never assumed. */
interface Description {
  type: string;
  flags?: Record<string, unknown>;
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  allow?: unknown[];
  keys?: Record<string, Description>;
  items?: Description[];
  whens?: unknown[];
}

/** Flags that change nothing an accepted value becomes (documentation and error wording), and `default`, which `compile` applies. */
const NEUTRAL_FLAGS = new Set(['presence', 'description', 'label', 'error', 'default']);
/** Description keys every schema may have: what it is, its flags, rules and allowed values, and what only documents it. */
const COMMON_KEYS = new Set(['type', 'flags', 'rules', 'allow', 'examples', 'metas', 'notes', 'tags']);

const flagsOf = (schema: Description): Record<string, unknown> => schema.flags ?? {};
const rulesOf = (schema: Description) => schema.rules ?? [];
const presenceOf = (schema: Description): unknown => flagsOf(schema).presence;
/** A rule's number argument, or undefined for anything else (a reference). */
const numberArg = (rule: { args?: Record<string, unknown> }, name = 'limit'): number | undefined => {
  const arg = rule.args?.[name];
  return typeof arg === 'number' ? arg : undefined;
};

function compile(schema: Description): Judge | null {
  const presence = presenceOf(schema);
  if (presence !== undefined && presence !== 'required' && presence !== 'optional') return null;
  const fallback = defaultOf(schema);
  if (fallback === UNSURE) return null;
  const typed = compileType(schema);
  if (!typed) return null;
  const allowsNull = schema.allow?.includes(null) ?? false;
  const judge: Judge = allowsNull ? (value) => (value === null ? null : typed(value)) : typed;
  return fallback === undefined ? judge : (value) => (value === undefined ? fallback : judge(value));
}

/** A schema's default: undefined for none, UNSURE for one not known here (a function, an object, a reference, with `required`). */
function defaultOf(schema: Description): unknown {
  const flags = flagsOf(schema);
  if (!Object.hasOwn(flags, 'default')) return undefined;
  const fallback = flags.default;
  const literal = typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean';
  return literal && flags.presence !== 'required' ? fallback : UNSURE;
}

function compileType(schema: Description): Judge | null {
  switch (schema.type) {
    case 'object':
      return compileObject(schema);
    case 'array':
      return compileArray(schema);
    case 'string':
      return compileString(schema);
    case 'number':
      return compileNumber(schema);
    case 'date':
      return compileDate(schema);
    default:
      return null;
  }
}

/**
 * True when the schema has no description key, flag or allowed value beyond the common and
 * neutral ones and `extra`: a preference, an invalid value, a reference, a condition, a pattern of
 * keys, a rename or anything Joi adds later is not.
 */
function onlyKnown(schema: Description, extra: { flags?: string[]; keys?: string[] }): boolean {
  const keysOk = Object.keys(schema).every((key) => COMMON_KEYS.has(key) || extra.keys?.includes(key));
  const flagsOk = Object.keys(flagsOf(schema)).every((flag) => NEUTRAL_FLAGS.has(flag) || extra.flags?.includes(flag));
  // Allowed values: null anywhere; the listed strings of valid(...) (`only`), where compileString checks them.
  const allowOk = (schema.allow ?? []).every((v) => v === null || (flagsOf(schema).only === true && typeof v === 'string'));
  return keysOk && flagsOk && allowOk;
}

function compileObject(schema: Description): Judge | null {
  const keys = schema.keys;
  if (!keys || rulesOf(schema).length > 0 || !onlyKnown(schema, { keys: ['keys'] })) return null;
  const children = new Map<string, { judge: Judge; required: boolean }>();
  const defaults: Array<[string, unknown]> = [];
  for (const [key, child] of Object.entries(keys)) {
    const required = presenceOf(child) === 'required';
    const fallback = defaultOf(child);
    // A key not known here is left to Joi whenever it is sent, and must then matter only when sent:
    // not required, no default, no condition (`when`) that could require it.
    const mattersUnsent = required || fallback !== undefined || (child.whens?.length ?? 0) > 0;
    const judge = compile(child) ?? (mattersUnsent ? null : () => UNSURE);
    if (!judge) return null;
    children.set(key, { judge, required });
    if (fallback !== undefined) defaults.push([key, fallback]);
  }
  const required = [...children].filter(([, c]) => c.required).map(([key]) => key);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return UNSURE;
    const source = value as Record<string, unknown>;
    // Own keys only: a declared name is never read through the prototype, and the client's keys are
    // looked up in the schema's Map (an own `__proto__` is refused before, api/validation.ts).
    for (const key of required) if (!Object.hasOwn(source, key) || source[key] === undefined) return UNSURE;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(source)) {
      const child = children.get(key);
      if (!child) return UNSURE; // an unknown key: Joi's error
      const judged = child.judge(source[key]);
      if (judged === UNSURE) return UNSURE;
      out[key] = judged;
    }
    // Joi adds the defaults of keys not sent, after the keys sent.
    for (const [key, fallback] of defaults) if (!Object.hasOwn(out, key)) out[key] = fallback;
    return out;
  };
}

function compileArray(schema: Description): Judge | null {
  const items = schema.items;
  // One item schema that is neither required nor forbidden: any number of items, each judged by it.
  if (!items || items.length !== 1 || presenceOf(items[0]!) !== undefined || !onlyKnown(schema, { keys: ['items'] })) return null;
  let min = 0;
  let max = Infinity;
  for (const rule of rulesOf(schema)) {
    const limit = numberArg(rule);
    if (rule.name === 'min' && limit !== undefined) min = limit;
    else if (rule.name === 'max' && limit !== undefined) max = limit;
    else return null;
  }
  const item = compile(items[0]!);
  if (!item) return null;
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return UNSURE;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const judged = value[i] === undefined ? UNSURE : item(value[i]);
      if (judged === UNSURE) return UNSURE;
      out[i] = judged;
    }
    return out;
  };
}

/** A pattern as `describe()` writes it (`/source/flags`), compiled back. */
function regexOf(described: unknown): RegExp | null {
  if (typeof described !== 'string' || !described.startsWith('/')) return null;
  const end = described.lastIndexOf('/');
  return end > 0 ? new RegExp(described.slice(1, end), described.slice(end + 1)) : null;
}

function compileString(schema: Description): Judge | null {
  if (!onlyKnown(schema, { flags: ['only'] })) return null;
  let trim = false;
  let min = 0;
  let max = Infinity;
  const patterns: Array<{ regex: RegExp; invert: boolean }> = [];
  for (const rule of rulesOf(schema)) {
    const args = rule.args ?? {};
    const options = (args.options ?? {}) as { invert?: unknown; name?: unknown };
    const regex = rule.name === 'pattern' ? regexOf(args.regex) : null;
    if (rule.name === 'trim' && typeof args.enabled === 'boolean') trim = args.enabled;
    else if (rule.name === 'minChars' && numberArg(rule) !== undefined) min = numberArg(rule)!;
    else if (rule.name === 'maxChars' && numberArg(rule) !== undefined) max = numberArg(rule)!;
    else if (regex && Object.keys(options).every((option) => option === 'invert' || option === 'name')) patterns.push({ regex, invert: options.invert === true });
    else return null;
  }
  const matches = (text: string) => patterns.every(({ regex, invert }) => regex.test(text) !== invert);
  if (flagsOf(schema).only === true) {
    // valid(...): Joi compares the converted string with the listed values, and nothing else applies.
    const listed = new Set(schema.allow);
    return (value) => {
      if (typeof value !== 'string') return UNSURE;
      const converted = trim ? value.trim() : value;
      return listed.has(converted) ? converted : UNSURE;
    };
  }
  return (value) => {
    if (typeof value !== 'string') return UNSURE;
    const converted = trim ? value.trim() : value;
    if (converted === '') return UNSURE;
    // A maximum and the patterns judge the string as sent too (domain/joi.ts); a minimum the converted
    // one. Limits count code points; a UTF-16 length within a maximum is within it, so most strings skip the count.
    if (value.length > max && characters(value) > max) return UNSURE;
    if (min > 0 && (converted.length < min || characters(converted) < min)) return UNSURE;
    if (!matches(converted) || (converted !== value && !matches(value))) return UNSURE;
    return converted;
  };
}
/**
 * A non-negative integer written as Joi would write it back (no sign, no leading zero, no exponent,
 * no spaces) and well within the safe integers: Joi converts it to the same number without a
 * warning. Any other numeric string ("007", " 12 ", "1e3", "-1") is left to Joi's own conversion.
 */
const CANONICAL_INTEGER = /^(?:0|[1-9]\d{0,14})$/;

function compileNumber(schema: Description): Judge | null {
  if (!onlyKnown(schema, {})) return null;
  let integer = false;
  let min = -Infinity;
  let max = Infinity;
  for (const rule of rulesOf(schema)) {
    const limit = numberArg(rule);
    if (rule.name === 'integer' && rule.args === undefined) integer = true;
    else if (rule.name === 'min' && limit !== undefined) min = limit;
    else if (rule.name === 'max' && limit !== undefined) max = limit;
    else return null;
  }
  return (value) => {
    const number = typeof value === 'string' && CANONICAL_INTEGER.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) return UNSURE; // any other string: Joi converts it
    if (number > Number.MAX_SAFE_INTEGER || number < Number.MIN_SAFE_INTEGER) return UNSURE;
    if ((integer && !Number.isInteger(number)) || number < min || number > max) return UNSURE;
    return number === 0 ? 0 : number;
  };
}

/**
 * RFC 3339 date-times: a subset of what Joi's `iso` format accepts (it also takes week dates,
 * ordinal dates, basic format and a space for the T), parsed by `new Date` as Joi parses them.
 */
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

function compileDate(schema: Description): Judge | null {
  if (flagsOf(schema).format !== 'iso' || !onlyKnown(schema, { flags: ['format'] })) return null;
  const customs: Array<(value: unknown, helpers: object) => unknown> = [];
  for (const rule of rulesOf(schema)) {
    const method = rule.args?.method;
    if (rule.name !== 'custom' || typeof method !== 'function') return null;
    customs.push(method as (value: unknown, helpers: object) => unknown);
  }
  return (value) => {
    if (typeof value !== 'string' || !RFC3339.test(value)) return UNSURE;
    let date: unknown = new Date(value);
    if (Number.isNaN((date as Date).getTime())) return UNSURE;
    for (const custom of customs) {
      date = runCustom(custom, date, value);
      if (date === UNSURE) return UNSURE;
    }
    return date;
  };
}

/** A `custom` rule as Joi runs it, with helpers whose every error means "not sure" (one that needs more of them throws: not sure either). */
function runCustom(custom: (value: unknown, helpers: object) => unknown, value: unknown, original: unknown): unknown {
  const unsure = () => UNSURE;
  try {
    const out = custom(value, { original, error: unsure, message: unsure, warn: unsure, errorsArray: unsure });
    return out === undefined ? UNSURE : out;
  } catch {
    return UNSURE;
  }
}
