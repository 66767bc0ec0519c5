/**
 * Walking an error's `cause` chain: the Temporal client wraps gRPC errors (a ServiceError whose
 * cause is the gRPC error), so a status code or the real message is found a level or two down.
 */
import { isGrpcServiceError } from '@temporalio/client';

const MAX_DEPTH = 4;

/** The error and its causes, outermost first, at most MAX_DEPTH of them. */
export function* causeChain(err: unknown): Generator<unknown> {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < MAX_DEPTH; e = e instanceof Error ? e.cause : undefined, depth += 1) yield e;
}

/** The first gRPC status code in the chain, or null. */
export function grpcStatusOf(err: unknown): number | null {
  for (const e of causeChain(err)) if (isGrpcServiceError(e)) return e.code;
  return null;
}

/** The first line of an error's message, bounded: enough to name a failing dependency, no stack. */
export function errorSummary(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]
    .slice(0, 200);
}

/** Node's socket errors when a server is down or went away mid-request. */
const UNREACHABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * PostgreSQL cannot be reached or is restarting: connection exceptions (class 08), an
 * administrator or crash shutdown (57P01-57P03), a refused or reset socket, the pool's wait for a
 * connection running out, or pg's "Connection terminated". Worth a 503 and a retry, not a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causeChain(err)) {
    const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code) || UNREACHABLE_SOCKET_CODES.has(code))) return true;
    if (typeof message === 'string' && /^(Knex: Timeout acquiring a connection|Connection terminated)/.test(message)) return true;
  }
  return false;
}

/** An error PostgreSQL sent (pg's DatabaseError): a SQLSTATE code and a severity. */
export interface PostgresError extends Error {
  code: string;
  severity: string;
  constraint?: unknown;
  table?: unknown;
  /** "Failing row contains (...)", "Key (email)=(...)": values, possibly personal data. */
  detail?: unknown;
}

export function isPostgresError(err: unknown): err is PostgresError {
  if (!(err instanceof Error)) return false;
  const { code, severity } = err as Partial<PostgresError>;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

/**
 * What of a PostgreSQL error may be logged: its code, constraint and table. Its message and
 * `detail` quote values (`invalid input syntax for type uuid: "..."`, `Failing row contains (...)`).
 */
export function postgresErrorFields(err: PostgresError): { type: 'DatabaseError'; code: string; constraint?: string; table?: string } {
  return {
    type: 'DatabaseError',
    code: err.code,
    ...(typeof err.constraint === 'string' ? { constraint: err.constraint } : {}),
    ...(typeof err.table === 'string' ? { table: err.table } : {}),
  };
}
