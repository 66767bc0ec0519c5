/**
 * The compiled fast path must answer exactly what Joi answers, or not at all: for every route
 * schema of the API that compiles, bodies, queries and paths generated from the schema itself
 * (valid ones, and each field bent into a near miss) are judged by both; whenever the fast path
 * answers, Joi accepts the same value and converts it to the same result. The compiler reads Joi's
 * public description (`describe()`): the shapes it reads are pinned here, so a Joi release that
 * writes them otherwise fails this file, and anything a description adds leaves its schema to Joi.
 */
import type { Schema } from 'joi';
import Joi from '../../../domain/joi';
import { compileFastPath } from '../../../domain/joi-fast-path';
import { apiRouters } from '../../../api/routers';

const JOI_OPTIONS = { abortEarly: false, convert: true, allowUnknown: false } as const;

/** A small seeded generator: the same cases on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { chance: (p: number) => next() < p, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}
type Random = ReturnType<typeof random>;

/** A schema as `describe()` writes it: what the generator reads. */
interface Description {
  type: string;
  flags?: Record<string, unknown>;
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  allow?: unknown[];
  keys?: Record<string, Description>;
  items?: Description[];
}

const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const STRANGE: unknown[] = [null, 12, true, {}, [], '', ' ', '\t\n'];
const DATES = [
  iso(now - 60_000),
  iso(now - 86_400_000).replace('Z', '+00:00'),
  '2026-11-27T10:00:00.123+01:00',
  '2026-11-27T10:00:00Z',
  iso(now + 86_400_000),
  '2026-11-27',
  '2026-11-27 10:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-11-27T24:00:00Z',
  ' 2026-11-27T10:00:00Z',
  '2026-11-27t10:00:00z',
  '20261127T100000Z',
  1_700_000_000_000,
];
const NUMBERS = [
  0,
  -0,
  1.5,
  -3,
  1e21,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  '12',
  ' 12 ',
  '1e3',
  'x',
  '0',
  '20',
  '100',
  '101',
  '007',
  '-1',
  '-0',
  '+5',
  '1.0',
  '12.5',
  '',
  '999999999999999',
  '9007199254740993',
];

function stringsFor(schema: Description): unknown[] {
  const limit = (name: string) => schema.rules?.find((r) => r.name === name)?.args?.limit as number | undefined;
  const max = limit('maxChars') ?? 20;
  const min = limit('minChars') ?? 1;
  const listed = (schema.allow ?? []).filter((v) => typeof v === 'string') as string[];
  const sized = (n: number) => 'x'.repeat(Math.max(0, Math.min(n, 5_000)));
  return [
    ...listed,
    ...listed.map((v) => ` ${v} `),
    'temperature',
    'A-1_b.c:d/e',
    'vibration.threshold_exceeded',
    '3f1c2a7e-1111-4222-8333-444455556666',
    ' padded ',
    'line\nbreak',
    'ünïcödé',
    sized(max),
    sized(max + 1),
    ` ${sized(max)}`,
    `${sized(max - 1)} `,
    '😀'.repeat(Math.min(max, 2_000)),
    '😀'.repeat(Math.min(max + 1, 2_001)),
    sized(min - 1),
    sized(min),
    'a',
  ];
}

/** A value for `schema`: mostly one it describes, sometimes a near miss. */
function sample(schema: Description, rnd: Random, depth = 0): unknown {
  if (depth > 6) return null;
  if (rnd.chance(0.04)) return rnd.pick(STRANGE);
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(schema.keys ?? {})) {
        const required = child.flags?.presence === 'required';
        if (required ? rnd.chance(0.98) : rnd.chance(0.6)) out[key] = sample(child, rnd, depth + 1);
      }
      if (rnd.chance(0.03)) out.unexpected = 'x';
      return out;
    }
    case 'array': {
      const item = schema.items![0]!;
      const max = schema.rules?.find((r) => r.name === 'max')?.args?.limit as number | undefined;
      const length = rnd.chance(0.05) && max !== undefined && max <= 600 ? rnd.pick([max, max + 1]) : rnd.pick([0, 1, 2, 3]);
      return Array.from({ length }, () => sample(item, rnd, depth + 1));
    }
    case 'string':
      return rnd.pick(stringsFor(schema));
    case 'number':
      return rnd.chance(0.7) ? rnd.pick([0, 1.5, -3, 42]) : rnd.pick(NUMBERS);
    case 'date':
      return rnd.chance(0.5) ? DATES[0] : rnd.pick(DATES);
    default:
      return rnd.pick(['x', 1, true, null]);
  }
}

function routeSchemas(): Array<{ name: string; schema: Schema }> {
  const out: Array<{ name: string; schema: Schema }> = [];
  for (const router of apiRouters()) {
    for (const route of router.routes) {
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = route[part] as Schema | undefined;
        if (schema) out.push({ name: `${route.method.toUpperCase()} ${route.fullPath} ${part}`, schema });
      }
    }
  }
  return out;
}

describe('the compiled fast path of a Joi schema', () => {
  const schemas = routeSchemas();
  const compiled = schemas.map((s) => ({ ...s, fastPath: compileFastPath(s.schema) })).filter((s) => s.fastPath !== null);

  it('compiles the gateway batches and answers a whole valid batch of readings alone', () => {
    const batch = compiled.find((s) => s.name === 'POST /api/v1/machine/readings/batch body');
    expect(batch).toBeDefined();
    const readings = Array.from({ length: 500 }, (_, i) => ({
      event_id: ` ev-${i} `,
      asset_id: '3f1c2a7e-1111-4222-8333-444455556666',
      parameter: 'temperature',
      value: i === 0 ? -0 : 40 + i / 10,
      unit: i % 2 ? 'C' : null,
      timestamp: iso(now - i * 1_000),
      source: 'gw-1',
    }));
    const answered = batch!.fastPath!({ readings });
    expect(answered).toBeDefined();
    expect(answered!.value).toEqual(batch!.schema.validate({ readings }, JOI_OPTIONS).value);
    const first = (answered!.value as { readings: Array<Record<string, unknown>> }).readings[0]!;
    expect(first).toEqual({ ...readings[0], event_id: 'ev-0', value: 0, timestamp: new Date(readings[0]!.timestamp) });
    expect(Object.is(first.value, 0)).toBe(true);
    expect(compiled.map((s) => s.name)).toContain('POST /api/v1/machine/readings body');
  });

  it('answers only what Joi accepts, with the value Joi converts it to, on every route schema that compiles', () => {
    let answered = 0;
    let refused = 0;
    for (const { name, schema, fastPath } of compiled) {
      const rnd = random(name.length * 7919 + 17);
      const description = schema.describe() as Description;
      for (let i = 0; i < 300; i += 1) {
        const value = sample(description, rnd);
        const fast = fastPath!(structuredClone(value));
        const joi = schema.validate(structuredClone(value), JOI_OPTIONS);
        if (joi.error) refused += 1;
        if (!fast) continue;
        answered += 1;
        expect({ name, value, error: joi.error?.message }).toEqual({ name, value, error: undefined });
        expect({ name, value, converted: fast.value }).toEqual({ name, value, converted: joi.value });
      }
    }
    // The generator reached both sides: values the fast path judged, and values Joi refused.
    expect(answered).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('leaves to Joi what it does not know: defaults it cannot copy, conversions of other types, references, alternatives', () => {
    expect(compileFastPath(Joi.number().greater(1))).toBeNull();
    expect(compileFastPath(Joi.boolean())).toBeNull();
    expect(compileFastPath(Joi.string().lowercase())).toBeNull();
    expect(compileFastPath(Joi.alternatives().try(Joi.string(), Joi.number()))).toBeNull();
    expect(compileFastPath(Joi.object({ a: Joi.string().default(() => 'x') }))).toBeNull();
    expect(compileFastPath(Joi.object({ a: Joi.boolean().required() }))).toBeNull();
    expect(compileFastPath(Joi.object({ a: Joi.boolean().default(true) }))).toBeNull();
    expect(compileFastPath(Joi.object().unknown(true))).toBeNull();
    // An optional key not known here: Joi judges every value that sends it, the fast path the others.
    const withFlag = compileFastPath(Joi.object({ n: Joi.number(), flag: Joi.boolean(), b: Joi.string().valid(Joi.ref('n')) }))!;
    expect(withFlag({ n: 1 })).toEqual({ value: { n: 1 } });
    expect(withFlag({ n: 1, flag: true })).toBeUndefined();
    expect(withFlag({ n: 1, b: '1' })).toBeUndefined();
    const numbers = compileFastPath(Joi.object({ n: Joi.number() }))!;
    for (const n of [' 12 ', '1e3', '012', '-5', '12.0']) expect(numbers({ n })).toBeUndefined(); // Joi converts these
    expect(numbers({ n: 12 })).toEqual({ value: { n: 12 } });
    expect(numbers({ n: '12' })).toEqual({ value: { n: 12 } });
  });

  it('answers a list query: its integer strings converted, its defaults added, its limits kept', () => {
    const list = compiled.find((s) => s.name === 'GET /api/v1/assets/ query');
    expect(list).toBeDefined();
    expect(list!.fastPath!({ limit: '20' })).toEqual({ value: { limit: 20, skip: 0 } });
    expect(list!.fastPath!({})).toEqual({ value: { skip: 0, limit: 20 } });
    expect(list!.fastPath!({ skip: '40', limit: '100', type: 'pump' })).toEqual({ value: { skip: 40, limit: 100, type: 'pump' } });
    for (const limit of ['0', '101', '007', '1.0', '-1', '2e1', ' 20', '']) expect(list!.fastPath!({ limit })).toBeUndefined();
    // The UUID rule is Joi's: a filter by parent is judged by Joi.
    expect(list!.fastPath!({ parent_id: '3f1c2a7e-1111-4222-8333-444455556666' })).toBeUndefined();
  });
});

describe('what the fast path reads of Joi', () => {
  it('is the description Joi writes, in the shapes the compiler reads (a Joi release that changes them fails here)', () => {
    const method = (value: unknown) => value;
    const schema = Joi.object({
      s: Joi.string().trim().min(1).max(5).pattern(/^a/i).pattern(/b/, { invert: true }).required(),
      v: Joi.string().valid('x', 'y').allow(null),
      n: Joi.number().integer().min(0).max(9).default(3),
      d: Joi.date().iso().custom(method),
      a: Joi.array().items(Joi.string()).min(1).max(2),
    });
    expect(schema.describe()).toEqual({
      type: 'object',
      keys: {
        s: {
          type: 'string',
          flags: { presence: 'required' },
          rules: [
            { name: 'trim', args: { enabled: true } },
            { name: 'minChars', args: { limit: 1 } },
            { name: 'maxChars', args: { limit: 5 } },
            { name: 'pattern', args: { regex: '/^a/i' } },
            { name: 'pattern', args: { regex: '/b/', options: { invert: true } } },
          ],
        },
        v: { type: 'string', flags: { only: true }, allow: ['x', 'y', null] },
        n: { type: 'number', flags: { default: 3 }, rules: [{ name: 'integer' }, { name: 'min', args: { limit: 0 } }, { name: 'max', args: { limit: 9 } }] },
        d: { type: 'date', flags: { format: 'iso' }, rules: [{ name: 'custom', args: { method } }] },
        a: {
          type: 'array',
          rules: [
            { name: 'min', args: { limit: 1 } },
            { name: 'max', args: { limit: 2 } },
          ],
          items: [{ type: 'string' }],
        },
      },
    });
    const fastPath = compileFastPath(schema)!;
    expect(fastPath({ s: 'aa ', v: null, d: '2026-11-27T10:00:00Z', a: ['x'] })).toEqual({ value: { s: 'aa', v: null, d: new Date('2026-11-27T10:00:00Z'), a: ['x'], n: 3 } });
  });

  it('leaves to Joi any schema whose description holds a key, flag or rule it does not know, at any depth', () => {
    type Node = Record<string, unknown>;
    /** Every node of a description with the path of keys that leads to it ('[]' for an array's items). */
    const nodes = (node: Node, path: string[] = []): Array<{ node: Node; path: string[] }> => [
      { node, path },
      ...Object.entries((node.keys as Record<string, Node> | undefined) ?? {}).flatMap(([key, child]) => nodes(child, [...path, key])),
      ...((node.items as Node[] | undefined) ?? []).flatMap((item) => nodes(item, [...path, '[]'])),
    ];
    /** Whether `value` has something at `path`. */
    const reaches = (value: unknown, path: string[]): boolean => {
      if (path.length === 0) return value !== undefined;
      const [head, ...rest] = path;
      if (head === '[]') return Array.isArray(value) && value.some((item) => reaches(item, rest));
      return typeof value === 'object' && value !== null && Object.hasOwn(value, head!) && reaches((value as Node)[head!], rest);
    };
    const additions: Array<[string, (node: Node) => void]> = [
      ['a key', (node) => (node.future = true)],
      ['a flag', (node) => (node.flags = { ...(node.flags as Node | undefined), future: true })],
      ['a rule', (node) => (node.rules = [...((node.rules as Node[] | undefined) ?? []), { name: 'future', args: { limit: 1 } }])],
    ];
    let checked = 0;
    for (const { name, schema } of routeSchemas().filter((s) => compileFastPath(s.schema) !== null)) {
      const description = schema.describe() as Node;
      for (const { path } of nodes(description)) {
        for (const [what, add] of additions) {
          const mutated = schema.describe() as Node; // a fresh description (custom rules hold functions, which cannot be cloned)
          add(nodes(mutated).find((n) => n.path.join('/') === path.join('/'))!.node);
          const fastPath = compileFastPath({ describe: () => mutated } as unknown as Schema);
          if (!fastPath) continue;
          const rnd = random(name.length * 31 + path.length);
          for (let i = 0; i < 20; i += 1) {
            const value = sample(description as unknown as Description, rnd);
            if (!reaches(value, path)) continue;
            expect({ name, path, what, answered: fastPath(structuredClone(value)) }).toEqual({ name, path, what, answered: undefined });
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });
});
