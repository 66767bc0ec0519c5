import Joi from '../../../domain/joi';
import type { Schema } from 'joi';
import { AppError } from '../../../domain/errors';
import { validate } from '../../../api/validation';

function failure(schema: Schema, value: unknown): AppError {
  try {
    validate(schema, value, 'body');
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a validation error');
}

describe('validate', () => {
  it("replaces Joi's label by the field's full path in the summary", () => {
    const err = failure(Joi.object({ items: Joi.array().items(Joi.object({ name: Joi.string().required() })) }), { items: [{}] });
    expect(err.message).toBe('invalid body: body.items.0.name is required');
  });

  it("keeps a rule's custom message whole instead of cutting its first word", () => {
    const schema = Joi.object({ type: Joi.string() }).custom((v, h) => (v.type === 'period' ? h.message({ custom: 'period is required for compliance reports' }) : v));
    const err = failure(schema, { type: 'period' });
    expect(err.message).toBe('invalid body: body period is required for compliance reports');
    expect((err.extra as { fields: unknown }).fields).toEqual([{ field: 'body', message: 'period is required for compliance reports', type: 'custom' }]);
  });
});

describe('a wide body', () => {
  const batch = Joi.object({
    readings: Joi.array()
      .items(Joi.object({ event_id: Joi.string().required(), value: Joi.number().required() }))
      .max(500),
  });
  it('is judged by its first error alone', () => {
    // Collecting every error of such a body took 6.9 s here and built a detail string of hundreds
    // of megabytes; the cost itself is the bench's to measure, the tests hold the one error.
    const err = failure(batch, { readings: Array.from({ length: 60_000 }, (_, i) => ({ i })) });
    expect(err.message).toBe('invalid body: body.readings.0.event_id is required');
    expect((err.extra as { fields: unknown[] }).fields).toHaveLength(1);
  });

  it('still has every error reported while it is small', () => {
    const err = failure(batch, { readings: [{}, { event_id: 'e' }] });
    expect((err.extra as { fields: { field: string }[] }).fields.map((f) => f.field)).toEqual(['body.readings.0.event_id', 'body.readings.0.value', 'body.readings.1.value']);
  });
});

describe('what no schema lets through', () => {
  const anything = Joi.any();
  const fieldOf = (value: unknown) => (failure(anything, value).extra as { fields: Array<{ field: string; type: string }> }).fields[0];

  it('names the full path of a NUL character, in a value or in a key', () => {
    expect(fieldOf({ readings: [{ source: 'ok' }, { source: 'a\u0000b' }] })).toEqual(expect.objectContaining({ field: 'body.readings.1.source', type: 'string.nul' }));
    expect(fieldOf({ data: { ['k\u0000']: 1 } })).toEqual(expect.objectContaining({ field: 'body.data.k\\u0000', type: 'string.nul' }));
  });

  it('refuses an own __proto__ key and a body nested deeper than any schema', () => {
    expect(fieldOf(JSON.parse('{"items":[{"__proto__":{"admin":true}}]}'))).toEqual(expect.objectContaining({ field: 'body.items.0.__proto__', type: 'object.reserved' }));
    let deep: unknown = 'leaf';
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(fieldOf({ deep })?.type).toBe('object.depth');
  });

  it('passes a clean body unchanged', () => {
    expect(validate(anything, { readings: [{ value: 1, source: 'plc' }] }, 'body')).toEqual({ readings: [{ value: 1, source: 'plc' }] });
  });
});
