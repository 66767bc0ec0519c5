import { trace } from '@opentelemetry/api';
import pino, { DestinationStream, Logger } from 'pino';
import { ConfigError } from './config';
import { causeChain, isPostgresError, postgresErrorFields } from './error-chain';

/**
 * An error as a log field: pino's serializer, except that a PostgreSQL error anywhere in the cause
 * chain is reduced to its code, constraint and table. pg's `detail` ("Failing row contains (...)")
 * and message quote the row's values, personal data included, and pino would log every field.
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  if (isPostgresError(err)) return postgresErrorFields(err);
  const postgres = [...causeChain(err)].find(isPostgresError);
  if (!postgres) return pino.stdSerializers.err(err);
  // pino folds the causes' messages and stacks into the outer ones: keep the outer error's own.
  return { ...pino.stdSerializers.err(err), message: err.message, stack: err.stack, cause: postgresErrorFields(postgres) };
}

/** The active span's ids on every line written inside it (a request, an activity): logs and traces join on them. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/**
 * JSON logs. Credentials and personal data never reach a log line: the redact list covers the
 * places they could appear, errors go through `serializeError`, and callers log ids, not bodies.
 */
export function createLogger(level: string, base: Record<string, unknown> = {}, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'industrial-ops', ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    mixin: traceFields,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.password', '*.refresh_token', '*.access_token', '*.secret', '*.token'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A rule of the environment the process will not run under (a privileged database role in production), with what breaks it. */
export class StartRefused extends Error {
  constructor(
    reason: string,
    readonly problems: string[],
  ) {
    super(reason);
    this.name = 'StartRefused';
  }
}

/**
 * A process that cannot start says why in one JSON line (whatever LOG_LEVEL says: it may not have
 * been read), then exits 1: a configuration refused lists its problems, any other error is logged.
 */
export function exitOnStartFailure(component: string, err: unknown): never {
  const log = createLogger('info', { component });
  if (err instanceof ConfigError) log.fatal({ problems: err.problems }, `${component} refused to start: invalid configuration`);
  else if (err instanceof StartRefused) log.fatal({ problems: err.problems }, `${component} refused to start: ${err.message}`);
  else log.fatal({ err }, `${component} failed to start`);
  process.exit(1);
}

export type { Logger };
