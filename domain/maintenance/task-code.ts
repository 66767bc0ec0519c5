// Task codes: "<PREFIX>-<number>", number zero-padded to at least 6 digits (PM-000042, PM-1234567).
// Numbers are allocated gap-free per (tenant, prefix) by the database; this module only formats.

export const TASK_CODE_DIGITS = 6;
export const TASK_PREFIX = /^[A-Z]{1,10}$/;
const CODE = /^([A-Z]{1,10})-(\d{6,})$/;

export function isValidTaskPrefix(prefix: unknown): prefix is string {
  return typeof prefix === 'string' && TASK_PREFIX.test(prefix);
}

export const TASK_PREFIX_RULE = '1 to 10 uppercase letters A-Z';

export function formatTaskCode(prefix: string, n: number): string {
  if (!isValidTaskPrefix(prefix)) throw new RangeError(`task prefix must be ${TASK_PREFIX_RULE}, got ${JSON.stringify(prefix)}`);
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`task number must be an integer >= 1, got ${n}`);
  return `${prefix}-${String(n).padStart(TASK_CODE_DIGITS, '0')}`;
}

export interface TaskCode {
  prefix: string;
  number: number;
}

/** Parses a canonical task code; null for anything formatTaskCode would not produce (PM-42, PM-0000042, pm-000042). */
export function parseTaskCode(code: string): TaskCode | null {
  const match = CODE.exec(code);
  if (!match) return null;
  const number = Number(match[2]);
  if (!Number.isSafeInteger(number) || number < 1) return null;
  return formatTaskCode(match[1], number) === code ? { prefix: match[1], number } : null;
}
