/**
 * How a failure leaves the CLI: an error object like the API's (`error_code`, `detail`, and the
 * AppError's extra fields) and an exit code a script can branch on:
 * 1 the operation was refused or failed, 2 the command line is wrong, 3 a dependency (PostgreSQL,
 * Temporal) is unavailable: retry.
 */
import { CommanderError } from 'commander';
import { AppError } from '../domain/errors';
import { InvalidDurationError } from '../domain/maintenance/duration';
import { ConfigError } from '../infra/config';
import { errorSummary, isDatabaseUnavailable } from '../infra/error-chain';

export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const;

/** A command line that cannot run: a missing or malformed option the parser cannot judge alone. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Failure {
  error_code: string;
  detail: string;
  exit: number;
  extra: Record<string, unknown>;
}

export function failureOf(err: unknown): Failure {
  const failure = (error_code: string, detail: string, exit: number, extra: Record<string, unknown> = {}): Failure => ({ error_code, detail, exit, extra });
  if (err instanceof CommanderError) return failure('USAGE', err.message.replace(/^error: /, ''), EXIT.usage);
  if (err instanceof UsageError || err instanceof InvalidDurationError) return failure('USAGE', err.message, EXIT.usage);
  if (err instanceof AppError) return failure(err.code, err.message, err.status >= 500 ? EXIT.unavailable : EXIT.failed, err.extra);
  if (err instanceof ConfigError) return failure('CONFIGURATION_ERROR', err.message, EXIT.failed, { problems: err.problems });
  if (isDatabaseUnavailable(err)) return failure('DEPENDENCY_UNAVAILABLE', `the database is unavailable: ${errorSummary(err)}`, EXIT.unavailable, { down: ['postgres'] });
  const code = (err as { code?: unknown }).code;
  if (code === '42501') {
    return failure('INSUFFICIENT_PRIVILEGE', `the database role may not do this: ${errorSummary(err)}`, EXIT.failed);
  }
  if (code === '23505') return failure('CONFLICT', 'conflicts with an existing record', EXIT.failed);
  return failure('INTERNAL_ERROR', errorSummary(err), EXIT.failed);
}
