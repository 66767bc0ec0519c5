/**
 * A value given for a template field (a person's correction, a model's answer) checked against the
 * field's type and normalised: dates to ISO, numbers from "1.234,56", enum values to the template's
 * spelling. Pure.
 */
import type { FieldValue, TemplateField } from './types';
import { coerceBoolean, coerceDate, coerceEnum, coerceItem, coerceNumber } from './values';

export type Coerced = { ok: true; value: FieldValue } | { ok: false; reason: string };

export function coerceFieldValue(field: TemplateField, raw: unknown): Coerced {
  if (raw === null) return { ok: true, value: null };
  const fail = (reason: string): Coerced => ({ ok: false, reason });
  switch (field.type) {
    case 'string':
      return typeof raw === 'string' ? { ok: true, value: raw.trim() } : typeof raw === 'number' ? { ok: true, value: String(raw) } : fail('must be a string');
    case 'number': {
      const value = coerceNumber(raw);
      return value === undefined ? fail('must be a number') : { ok: true, value };
    }
    case 'date': {
      const value = coerceDate(raw);
      return value === undefined ? fail('must be a date (yyyy-mm-dd, dd/mm/yyyy or "12 March 2026")') : { ok: true, value };
    }
    case 'boolean': {
      const value = coerceBoolean(raw);
      return value === undefined ? fail('must be a boolean') : { ok: true, value };
    }
    case 'enum': {
      const value = coerceEnum(raw, field.values);
      return value === undefined ? fail(`must be one of ${field.values.join(', ')}`) : { ok: true, value };
    }
    case 'array': {
      if (!Array.isArray(raw)) return fail(`must be an array of ${field.items}`);
      const items = raw.map((item) => coerceItem(item, field.items));
      return items.some((i) => i === undefined) ? fail(`every item must be a ${field.items}`) : { ok: true, value: items as Array<string | number> };
    }
  }
}
