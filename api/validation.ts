import Joi from 'joi';
import { FieldError, validationError } from './errors';

/**
 * Validates one part of a request. Unknown body fields are an error rather than silently
 * dropped: a typo in a field name should not look like success.
 */
export function validate<T>(schema: Joi.Schema, value: unknown, part: 'body' | 'query' | 'params'): T {
  const { error, value: result } = schema.validate(value, {
    abortEarly: false,
    convert: true,
    allowUnknown: false,
    errors: { wrap: { label: false } },
  });
  if (error) {
    const fields: FieldError[] = error.details.map((d) => ({
      field: [part, ...d.path].join('.'),
      message: d.message,
      type: d.type,
    }));
    throw validationError(`invalid ${part}: ${fields.map((f) => `${f.field} ${stripLabel(f.message)}`).join('; ')}`, fields);
  }
  return result as T;
}

function stripLabel(message: string): string {
  return message.replace(/^\S+ /, '');
}

/** Path ids are UUIDs; see tenant-scope.isUuid for why a malformed id is a 404, not a 422. */
export const idParam = Joi.string().max(64);
