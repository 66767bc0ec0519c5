/**
 * When a record was created and last changed, as every resource shows them: the schema fields
 * and the row's values, last in the record (ISO 8601, UTC).
 */
import Joi from '../domain/joi';
import { isoTime } from '../domain/time';

export const recordTimesSchema = { created_at: Joi.string().isoDate(), updated_at: Joi.string().isoDate() };

export const recordTimesOf = (row: { created_at: Date; updated_at: Date }) => ({ created_at: isoTime(row.created_at), updated_at: isoTime(row.updated_at) });
