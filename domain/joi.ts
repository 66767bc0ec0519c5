import BaseJoi from 'joi';

/**
 * The Joi of the project: Joi, except that string lengths (`min`, `max`, `length`) count characters
 * (Unicode code points), as JSON Schema's minLength/maxLength do, not UTF-16 units. The OpenAPI
 * document is generated from these schemas, so a client that trusts the document and sends an
 * emoji (one code point, two UTF-16 units) must get the answer the document promises: the fuzzer
 * found 8 emoji accepted as a 16-character verify token. Import Joi from here, never from 'joi'.
 *
 * A maximum and a pattern judge the string as sent, before `trim` changes it (as the document's
 * maxLength and pattern do); a minimum counts it after, so a blank value stays too short.
 *
 * Joi refuses to redefine its own rules, so `min`/`max`/`length` are overridden as methods that add
 * the rules `minChars`/`maxChars`; api/openapi-schema.ts documents them as minLength/maxLength.
 */

/** A string's length in code points, as the limits here and JSON Schema count it (the fast path too). */
export const characters = (value: string): number => {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
};

const limitArg = { name: 'limit', assert: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0, message: 'must be a non-negative integer' };

/** One `pattern` rule of a string schema, as Joi keeps it. */
interface PatternRule {
  name: string;
  args: { regex: RegExp; options: { invert?: boolean; name?: string } };
}

const Joi = BaseJoi.extend((joi: BaseJoi.Root) => ({
  type: 'string',
  base: joi.string(),
  /**
   * A pattern is also judged on the string as sent when a conversion (`trim`) changed it: the
   * document's pattern describes the sent value, so "text\n" is not one line of text even though
   * trimming would make it one. Joi's own pattern rule then judges the converted value as before.
   */
  validate(value: unknown, helpers: BaseJoi.CustomHelpers) {
    const sent: unknown = helpers.original;
    if (typeof sent !== 'string' || sent === value) return undefined;
    const rules = (helpers.schema as unknown as { _rules: PatternRule[] })._rules.filter((rule) => rule.name === 'pattern');
    for (const { args } of rules) {
      const { regex, options } = args;
      if (regex.test(sent) === !options.invert) continue;
      const code = ['string.pattern', options.invert ? '.invert' : '', options.name ? '.name' : '.base'].join('');
      return { value, errors: [helpers.error(code, { name: options.name, regex, value: sent })] };
    }
    return undefined;
  },
  overrides: {
    min(this: BaseJoi.StringSchema & { $_addRule(rule: object): BaseJoi.StringSchema }, limit: number) {
      return this.$_addRule({ name: 'minChars', method: 'minChars', args: { limit } });
    },
    max(this: BaseJoi.StringSchema & { $_addRule(rule: object): BaseJoi.StringSchema }, limit: number) {
      return this.$_addRule({ name: 'maxChars', method: 'maxChars', args: { limit } });
    },
    length(this: BaseJoi.StringSchema, limit: number) {
      return this.min(limit).max(limit);
    },
  },
  rules: {
    minChars: {
      args: [limitArg],
      validate: (value: string, helpers: BaseJoi.CustomHelpers, { limit }: { limit: number }) =>
        characters(value) >= limit ? value : helpers.error('string.min', { limit, value }),
    },
    // The maximum is judged on the string as sent, before `trim` (or any other conversion)
    // shortens it: the document's maxLength describes the sent value, so 1 space + 2 000
    // characters is too long for a maximum of 2 000 (the fuzzer sent exactly that).
    maxChars: {
      args: [limitArg],
      validate: (value: string, helpers: BaseJoi.CustomHelpers, { limit }: { limit: number }) =>
        characters(typeof helpers.original === 'string' ? helpers.original : value) <= limit ? value : helpers.error('string.max', { limit, value }),
    },
  },
})) as BaseJoi.Root;

export default Joi;
