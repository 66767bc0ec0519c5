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
