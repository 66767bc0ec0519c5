/**
 * Joi → JSON Schema (OpenAPI 3.1) for the document, on joi-to-json, with the rules it leaves out
 * (issue 17: "the document is exact"), so a client or a fuzzer that trusts the document sends what
 * the API accepts:
 *
 * - maps: `Joi.object()` without keys takes any keys, and `.pattern(keySchema, valueSchema)` keys
 *   of a shape; joi-to-json writes both as closed empty objects. In requests and responses alike;
 * - request strings: Joi refuses '' unless allowed, and a trimmed string that is blank; PostgreSQL
 *   cannot store NUL, which the shared validation refuses anywhere in a body (api/validation.ts),
 *   keys and free-form values included (`StorableJson`). Written as `minLength: 1` and a `pattern`
 *   whose whitespace class is spelled out, so JavaScript and other regex engines agree on it;
 * - request numbers: Joi refuses numbers beyond ±2^53 (`number.unsafe`);
 * - objects: `min`/`max` keys as `minProperties`/`maxProperties`;
 * - `meta({ pattern })` on custom rules (timestamps, prefixes) carries their shape, and
 *   `meta({ documentAs })` documents a rule by an equivalent Joi schema (conditional alternatives).
 *
 * Response strings keep Joi's shape only: they describe data, not what a client may send.
 */
import type { Schema } from 'joi';

type JsonSchema = Record<string, any>;
type JoiDescription = Record<string, any>;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- joi-to-json ships this parser without types or an ES export
const OpenApi31Parser: new (opts?: object) => { parse(spec: JoiDescription): JsonSchema } = require('joi-to-json/lib/parsers/open-api-3.1');

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator). */
const JS_SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;
const NO_NUL = String.raw`^[^\u0000]*$`;
const NOT_BLANK_NO_NUL = String.raw`^[^\u0000]*[^${JS_SPACE}\u0000][^\u0000]*$`;
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

export const STORABLE_JSON_REF = '#/components/schemas/StorableJson';
/**
 * Keys the shared validation takes: no NUL. (`__proto__` is refused too, by the JSON parser with a
 * 400; it is left out here because generators cannot combine `not` with key patterns.)
 */
const STORABLE_KEY: JsonSchema = { pattern: NO_NUL };

/** Any JSON value PostgreSQL can store: no NUL in a string or a key (recursive). */
export const STORABLE_JSON: JsonSchema = {
  description: 'Any JSON value without a NUL character (\\u0000) in its strings or keys, and no "__proto__" key (400)',
  anyOf: [
    { type: 'string', pattern: NO_NUL },
    { type: ['number', 'boolean', 'null'] },
    { type: 'array', items: { $ref: STORABLE_JSON_REF } },
    { type: 'object', propertyNames: STORABLE_KEY, additionalProperties: { $ref: STORABLE_JSON_REF } },
  ],
};

const CHARACTER_RULES = new Map([
  ['minChars', 'min'],
  ['maxChars', 'max'],
]);
const hasRule = (spec: JoiDescription, name: string) => (spec.rules ?? []).some((rule: { name: string }) => rule.name === name);
const isEmptySchema = (schema: JsonSchema) => Object.keys(schema).every((key) => key === 'description');

class DocumentSchemaParser extends (OpenApi31Parser as any) {
  /** `meta({ documentAs: joiSchema })`: a rule joi-to-json cannot convert, documented by an equivalent shape. */
  parse(spec: JoiDescription, definitions: object = {}, level = 0): JsonSchema {
    // describe() has already turned the meta's Joi schema into its description.
    const documentAs = (spec.metas ?? []).find((m: { documentAs?: unknown }) => m.documentAs)?.documentAs as JoiDescription | undefined;
    if (!documentAs) {
      const schema = super.parse(spec, definitions, level);
      // `alternatives().allow(null)` comes out as `type: null` beside `anyOf` (only null, and not even
      // that): null is one more branch.
      if (Array.isArray(schema.anyOf) && schema.type === 'null') {
        delete schema.type;
        schema.anyOf = [...schema.anyOf, { type: 'null' }];
      }
      return schema;
    }
    const shape = this.parse(documentAs, definitions, level);
    return spec.flags?.description ? { ...shape, description: spec.flags.description } : shape;
  }

  /** String lengths in characters (domain/joi.ts): the rules `minChars`/`maxChars` are JSON Schema's own. */
  _setStringFieldProperties(schema: JsonSchema, spec: JoiDescription): void {
    const rules = (spec.rules ?? []).map((rule: { name: string }) => ({ ...rule, name: CHARACTER_RULES.get(rule.name) ?? rule.name }));
    super._setStringFieldProperties(schema, { ...spec, rules });
  }

  _setObjectProperties(schema: JsonSchema, spec: JoiDescription, definitions: object, level: number): void {
    super._setObjectProperties(schema, spec, definitions, level);
    if (schema.type !== 'object' || spec.type !== 'object') return;
    const typedKeys = (spec.patterns ?? []).filter((p: JoiDescription) => p.schema && p.rule);
    if (typedKeys.length === 1) {
      // `.pattern(keySchema, valueSchema)`: a map from keys of that shape to values of that shape.
      if (isEmptySchema(schema.properties ?? {})) delete schema.properties;
      schema.propertyNames = this.parse(typedKeys[0].schema, definitions, level + 1);
      schema.additionalProperties = this.parse(typedKeys[0].rule, definitions, level + 1);
    } else if (spec.keys === undefined && !(spec.patterns?.length > 0)) {
      delete schema.additionalProperties; // `Joi.object()`: any keys
    }
  }
}

class RequestSchemaParser extends DocumentSchemaParser {
  override parse(spec: JoiDescription, definitions: object = {}, level = 0): JsonSchema {
    const schema = super.parse(spec, definitions, level);
    // `Joi.any()` and friends: any value the shared validation lets through.
    return isEmptySchema(schema) ? { ...schema, $ref: STORABLE_JSON_REF } : schema;
  }

  override _setStringFieldProperties(schema: JsonSchema, spec: JoiDescription): void {
    super._setStringFieldProperties(schema, spec);
    if (schema.type !== 'string' || schema.format === 'uuid' || schema.format === 'date-time') return;
    const emptyAllowed = (spec.allow ?? []).includes('');
    if (!emptyAllowed && schema.minLength === undefined) schema.minLength = 1;
    if (schema.pattern === undefined) schema.pattern = !emptyAllowed && hasRule(spec, 'trim') ? NOT_BLANK_NO_NUL : NO_NUL;
  }

  _setNumberFieldProperties(schema: JsonSchema, spec: JoiDescription): void {
    super._setNumberFieldProperties(schema, spec);
    if (schema.type !== 'number' && schema.type !== 'integer') return;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = SAFE_INTEGER;
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = -SAFE_INTEGER;
  }

  override _setObjectProperties(schema: JsonSchema, spec: JoiDescription, definitions: object, level: number): void {
    super._setObjectProperties(schema, spec, definitions, level);
    if (schema.type !== 'object') return;
    for (const rule of spec.rules ?? []) {
      const limit = rule.args?.limit;
      if (rule.name === 'min') schema.minProperties = limit;
      if (rule.name === 'max') schema.maxProperties = limit;
      if (rule.name === 'length') schema.minProperties = schema.maxProperties = limit;
    }
    if (schema.additionalProperties !== false) {
      schema.propertyNames = { ...STORABLE_KEY, ...(schema.propertyNames ?? {}) };
      if (schema.additionalProperties === undefined || schema.additionalProperties === true) schema.additionalProperties = { $ref: STORABLE_JSON_REF };
    }
  }

  _setMetaProperties(schema: JsonSchema, spec: JoiDescription): void {
    super._setMetaProperties(schema, spec);
    for (const meta of spec.metas ?? []) if (typeof meta.pattern === 'string') schema.pattern = meta.pattern;
  }
}

// Both parsers carry state between calls (inherited preferences): one instance per conversion.
export const requestJsonSchema = (schema: Schema): JsonSchema => new RequestSchemaParser().parse(schema.describe());
export const responseJsonSchema = (schema: Schema): JsonSchema => new (DocumentSchemaParser as any)().parse(schema.describe());
