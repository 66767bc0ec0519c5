/** Option parsers and option groups that several commands share. */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { PageRequest } from '../db/pagination';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../db/pagination';
import { addDuration } from '../domain/maintenance/duration';
import type { SecretSource } from './secrets';

/** An integer within bounds (commander's argParser: refused as a usage error). */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };
}

/** An instant in ISO 8601 (`2026-01-31T12:00:00Z`, or a date: its midnight UTC). */
export function instant(value: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('must be an ISO 8601 date or time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z');
  return date;
}

/** An ISO 8601 duration (`PT1H`, `P30D`) as whole seconds from now. */
export function durationSeconds(value: string): number {
  const now = new Date();
  try {
    return Math.round((addDuration(now, value).getTime() - now.getTime()) / 1000);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** `--limit` and `--skip`, as the API's lists take them. */
export function withPage(command: Command): Command {
  return command
    .addOption(new Option('--limit <n>', `rows per page (1 to ${MAX_LIMIT})`).argParser(integer(1, MAX_LIMIT)).default(DEFAULT_LIMIT))
    .addOption(new Option('--skip <n>', 'rows to skip').argParser(integer(0, 1_000_000_000)).default(0));
}

export function pageOf(options: { limit: number; skip: number }): PageRequest {
  return { limit: options.limit, skip: options.skip };
}

/** Where a password comes from when it is not asked in the terminal. */
export function withPassword(command: Command): Command {
  return command
    .option('--password-stdin', 'read the password from stdin (one trailing newline is dropped)')
    .option('--password-file <path>', 'read the password from a file (one trailing newline is dropped)');
}

export function secretSource(options: { passwordStdin?: boolean; passwordFile?: string }): SecretSource {
  return { stdin: options.passwordStdin, file: options.passwordFile };
}
