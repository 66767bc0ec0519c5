import { requestJsonSchema, responseJsonSchema } from '../../../api/openapi-schema';
import Joi from '../../../domain/joi';

describe('string lengths count characters, as the OpenAPI document (JSON Schema) does', () => {
  const token = Joi.string().min(16).max(20);

  it('refuses 8 emoji as 16 characters (they are 16 UTF-16 units, 8 characters)', () => {
    expect(token.validate('😀'.repeat(8)).error?.details[0]?.type).toBe('string.min');
  });

  it('accepts 18 emoji under a maximum of 20 characters (36 UTF-16 units)', () => {
    expect(token.validate('😀'.repeat(18)).error).toBeUndefined();
  });

  it('still counts plain text as before', () => {
    expect(token.validate('a'.repeat(15)).error?.message).toBe('"value" length must be at least 16 characters long');
    expect(token.validate('a'.repeat(21)).error?.message).toBe('"value" length must be less than or equal to 20 characters long');
    expect(token.validate('a'.repeat(16)).error).toBeUndefined();
  });

  it('judges a maximum on the string as sent, before trim, and a minimum after it (as the document describes the sent value)', () => {
    const description = Joi.string().trim().min(1).max(5);
    expect(description.validate(' abcde').error?.details[0]?.type).toBe('string.max');
    expect(description.validate('\u000babcd😀').error?.details[0]?.type).toBe('string.max');
    expect(description.validate(' abc ').value).toBe('abc');
    expect(description.validate('   ').error?.details[0]?.type).toBe('string.empty');
    expect(Joi.object({ items: Joi.array().items(Joi.string().trim().max(2)) }).validate({ items: ['ab', ' ab'] }).error?.details[0]?.path).toEqual(['items', 1]);
  });

  it('judges a pattern on the string as sent as well, when trim changed it', () => {
    const oneLine = Joi.string()
      .trim()
      .max(20)
      .pattern(/^[^\n\t]*$/);
    expect(oneLine.validate('pump A\n').error?.details[0]?.type).toBe('string.pattern.base');
    expect(oneLine.validate(' pump A ').value).toBe('pump A');
    expect(
      Joi.string()
        .trim()
        .pattern(/^[a-z]+$/, 'code')
        .validate(' abc').error?.details[0]?.type,
    ).toBe('string.pattern.name');
    expect(
      Joi.string()
        .trim()
        .pattern(/^[a-z]+$/)
        .validate('abc').value,
    ).toBe('abc');
  });

  it('lets a later limit replace an earlier one, and length set both', () => {
    expect(Joi.string().min(3).min(5).validate('abcd').error?.details[0]?.type).toBe('string.min');
    expect(Joi.string().length(2).validate('😀😀').error).toBeUndefined();
    expect(Joi.string().length(2).validate('😀').error?.details[0]?.type).toBe('string.min');
  });
});

it('documents the character limits as minLength and maxLength, in requests and responses', () => {
  const schema = Joi.object({ token: Joi.string().min(16).max(256), code: Joi.string().length(4) });
  for (const document of [requestJsonSchema(schema), responseJsonSchema(schema)]) {
    expect(document.properties.token).toMatchObject({ type: 'string', minLength: 16, maxLength: 256 });
    expect(document.properties.code).toMatchObject({ type: 'string', minLength: 4, maxLength: 4 });
  }
});
