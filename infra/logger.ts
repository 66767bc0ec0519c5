import pino, { Logger } from 'pino';

/**
 * JSON logs. Credentials and personal data never reach a log line: the redact list covers the
 * places they could appear, and callers log ids, not bodies.
 */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'industrial-ops', ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.password', '*.refresh_token', '*.access_token', '*.secret', '*.token'],
      censor: '[redacted]',
    },
  });
}

export type { Logger };
