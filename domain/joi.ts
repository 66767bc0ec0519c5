import BaseJoi from 'joi';

/**
 * The Joi of the project: Joi, except that string lengths (`min`, `max`, `length`) count characters
 * (Unicode code points), as JSON Schema's minLength/maxLength do, not UTF-16 units. The OpenAPI
 * document is generated from these schemas, so a client that trusts the document and sends an
 * emoji (one code point, two UTF-16 units) must get the answer the document promises: the fuzzer
 * found 8 emoji accepted as a 16-character verify token. Import Joi from here, never from 'joi'.
 *
 * Joi refuses to redefine its own rules, so `min`/`max`/`length` are overridden as methods that add
 * the rules `minChars`/`maxChars`; api/openapi-schema.ts documents them as minLength/maxLength.
 */
const characters = (value: string): number => {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
};

const limitArg = { name: 'limit', assert: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0, message: 'must be a non-negative integer' };

const Joi = BaseJoi.extend((joi: BaseJoi.Root) => ({
  type: 'string',
  base: joi.string(),
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
    maxChars: {
      args: [limitArg],
      validate: (value: string, helpers: BaseJoi.CustomHelpers, { limit }: { limit: number }) =>
        characters(value) <= limit ? value : helpers.error('string.max', { limit, value }),
    },
  },
})) as BaseJoi.Root;

export default Joi;
