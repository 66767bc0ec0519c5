import Joi from './joi';

/**
 * The one email rule of the API and the CLIs: syntactically valid, any top-level domain (private
 * and test domains such as `.test` or `.internal` are real in plants and in tests), bounded by the
 * SMTP path limit. An address one door accepts is never refused by another: `npm run
 * tenant:create` and `POST /auth/login` apply this same schema.
 */
export const emailSchema = Joi.string().trim().lowercase().email({ tlds: false }).max(254);

/** The normalised address, or null when the rule refuses it. */
export function normalizeEmail(value: string): string | null {
  const result = emailSchema.validate(value);
  return result.error ? null : (result.value as string);
}
