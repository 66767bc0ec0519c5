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
    const summary = error.details.map((d, i) => `${fields[i]!.field} ${withoutLabel(d.message, d.context?.label)}`);
    throw validationError(`invalid ${part}: ${summary.join('; ')}`, fields);
  }
  return result as T;
}

/**
 * Joi's own messages start with the field's label, which the summary replaces by the full path;
 * a rule's custom message (`h.message`) need not, and then is kept whole.
 */
function withoutLabel(message: string, label: string | undefined): string {
  return label && message.startsWith(`${label} `) ? message.slice(label.length + 1) : message;
}

/** Path ids are UUIDs; see tenant-scope.isUuid for why a malformed id is a 404, not a 422. */
export const idParam = Joi.string().max(64);
