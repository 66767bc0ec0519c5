import Joi from '../domain/joi';
import type { Schema } from 'joi';
import { emailSchema } from '../domain/email';
import { FieldError, validationError } from '../domain/errors';
import { compileFastPath, type FastPath } from '../domain/joi-fast-path';
import { MAX_JSON_DEPTH } from '../domain/json-depth';

/**
 * Validates one part of a request. Unknown body fields are an error rather than silently
 * dropped: a typo in a field name should not look like success. Every string of the part, key or
 * value, must be one PostgreSQL can store (see `assertStorable`), whatever the schema says.
 * A value the schema's compiled fast path judges alone is answered by it (domain/joi-fast-path.ts:
 * the same converted value Joi gives); Joi judges every other one, and words every error.
 */
export function validate<T>(schema: Schema, value: unknown, part: 'body' | 'query' | 'params'): T {
  assertStorable(value, part);
  const judged = fastPathOf(schema)?.(value);
  if (judged) return judged.value as T;
  // First to the first error: a valid value costs what it always did, and a wide invalid one (60 000
  // array items) stops at once instead of collecting an error per item (6.9 s, one detail string of
  // hundreds of megabytes). Every error is then collected for a value small enough to make that cheap.
  const first = schema.validate(value, { ...JOI_OPTIONS, abortEarly: true });
  if (!first.error) return first.value as T;
  const error = (nodesUpTo(value, MAX_NODES_FOR_ALL_ERRORS) <= MAX_NODES_FOR_ALL_ERRORS && schema.validate(value, { ...JOI_OPTIONS, abortEarly: false }).error) || first.error;
  const fields: FieldError[] = error.details.map((d) => ({
    field: [part, ...d.path].join('.'),
    message: d.message,
    type: d.type,
  }));
  const summary = error.details.map((d, i) => `${fields[i]!.field} ${withoutLabel(d.message, d.context?.label)}`);
  throw validationError(`invalid ${part}: ${summary.join('; ')}`, fields);
}

const JOI_OPTIONS = { convert: true, allowUnknown: false, errors: { wrap: { label: false } } } as const;

/** Values (objects, arrays and scalars) past which only the first error is reported: 1 000 array items of 5 errors each took 120 ms. */
const MAX_NODES_FOR_ALL_ERRORS = 500;

/** How many values `value` holds, counted up to just past `limit`. */
function nodesUpTo(value: unknown, limit: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count <= limit) {
    const next = pending.pop();
    count += 1;
    if (next !== null && typeof next === 'object') for (const inner of Array.isArray(next) ? next : Object.values(next)) pending.push(inner);
  }
  return count;
}

/** Each route's schemas are built once, so each is compiled once (null: Joi alone). */
const fastPaths = new WeakMap<Schema, FastPath | null>();

function fastPathOf(schema: Schema): FastPath | null {
  let fastPath = fastPaths.get(schema);
  if (fastPath === undefined) {
    fastPath = compileFastPath(schema);
    fastPaths.set(schema, fastPath);
  }
  return fastPath;
}

/**
 * Refused here, once, for every route, whatever its schema:
 * - the NUL character, which PostgreSQL refuses in text and jsonb (a JSON body may carry it as
 *   `\u0000`, a query or path as `%00`); nothing else a JSON or URL decoder yields is unstorable
 *   (lone surrogates are sent by the driver as U+FFFD), so no handler can forward one and answer 500;
 * - the key `__proto__`, which JSON.parse keeps as an own key but any later copy by assignment
 *   (a schema library's clone, a merge) turns into the object's prototype.
 */
export function assertStorable(value: unknown, part: string): void {
  const bad = firstUnsafe(value, 0);
  if (bad) {
    const field = [part, ...bad.path.reverse()].join('.');
    throw validationError(`invalid ${part}: ${field} ${bad.message}`, [{ field, message: bad.message, type: bad.type }]);
  }
}

/** Deeper than any schema of the API: a value nested further is refused rather than walked. */
const MAX_DEPTH = MAX_JSON_DEPTH;

interface Unsafe {
  path: string[];
  message: string;
  type: string;
}

const NUL: Omit<Unsafe, 'path'> = { message: 'contains a NUL character (\\u0000), which cannot be stored', type: 'string.nul' };

/**
 * The first unstorable string or key below `value`. Its path is collected on the way back out,
 * innermost segment first (reversed by the caller), so a clean body (the common case: 500 readings
 * of a gateway batch) is walked without building a path for every node.
 */
function firstUnsafe(value: unknown, depth: number): Unsafe | null {
  if (typeof value === 'string') return value.includes('\u0000') ? { path: [], ...NUL } : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_DEPTH) return { path: [], message: `is nested deeper than ${MAX_DEPTH} levels`, type: 'object.depth' };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnsafe(value[i], depth + 1);
      if (found) return (found.path.push(String(i)), found);
    }
    return null;
  }
  // Own entries: an own `__proto__` key (JSON.parse makes one) is reported, never read through the prototype.
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return { path: [key.replaceAll('\u0000', '\\u0000')], ...NUL };
    if (key === '__proto__') return { path: [key], message: 'is a reserved key', type: 'object.reserved' };
    const found = firstUnsafe(inner, depth + 1);
    if (found) return (found.path.push(key), found);
  }
  return null;
}

/**
 * Joi's own messages start with the field's label, which the summary replaces by the full path;
 * a rule's custom message (`h.message`) need not, and then is kept whole.
 */
function withoutLabel(message: string, label: string | undefined): string {
  return label && message.startsWith(`${label} `) ? message.slice(label.length + 1) : message;
}

/**
 * A reference to a record in a body or query: every record id is a UUID, so anything else is a
 * validation error (422) before it reaches a query, never a cast error or an echoed filter.
 */
export const idRef = Joi.string().guid().description('UUID of the record');

/**
 * Path ids (`:xxx_id`) are checked by the router itself (api/route.ts: a malformed id is 404
 * NOT_FOUND, like an unknown one); the schema only documents them.
 */
export const idParam = idRef;

/** The one email rule (domain/email.ts), for request schemas. */
export const emailField = emailSchema;

/** Colours as CSS writes them: `#RGB` or `#RRGGBB`, stored expanded and lower-case. */
export const colourField = Joi.string()
  .trim()
  .pattern(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)
  .custom((value: string) => expandColour(value))
  .messages({ 'string.pattern.base': 'must be a colour in the form #RGB or #RRGGBB' });

export function expandColour(value: string): string {
  const hex = value.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}
