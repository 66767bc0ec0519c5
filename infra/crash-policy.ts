/**
 * The crash policy of a long-running process (the API, the worker). An uncaught exception or an
 * unhandled rejection means some state of this process may be wrong: it is logged once with the
 * request or job it came from (infra/work-context.ts: ids only), then `stop(EXIT_CRASHED)` flips
 * readiness and drains the work in flight within the process's bound, and the process exits
 * non-zero for its supervisor to start a fresh one. The error's message is redacted (a parser's
 * message may quote its input) and its stack keeps only the frames.
 */
import type { Logger } from 'pino';
import { redactPii } from '../domain/privacy/pii';
import { currentWorkContext } from './work-context';

/** EX_SOFTWARE (sysexits.h): the process ended itself on an internal error. */
export const EXIT_CRASHED = 70;

export type CrashKind = 'uncaught_exception' | 'unhandled_rejection';

const MAX_MESSAGE = 300;

/** What a crash's log line says of the error: its type, a redacted message, the stack's frames. */
export function crashError(err: unknown): { type: string; message: string; frames?: string[] } {
  if (!(err instanceof Error)) return { type: typeof err, message: redactPii(String(err).slice(0, MAX_MESSAGE)).text };
  const frames = (err.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => line.trim());
  return { type: err.name, message: redactPii(err.message.slice(0, MAX_MESSAGE)).text, frames: frames.slice(0, 20) };
}

export interface CrashPolicy {
  /** Crashes seen so far (the first stops the process; later ones are only logged). */
  crashes(): number;
  uninstall(): void;
}

/**
 * Installs the process's handlers. `stop(exitCode)` is the process's own drain (the one SIGTERM
 * runs), which must end in an exit with that code within its bound.
 */
export function installCrashPolicy(options: { component: string; log: Logger; stop: (exitCode: number) => void }): CrashPolicy {
  let crashes = 0;
  const handler = (kind: CrashKind) => (err: unknown) => {
    crashes += 1;
    options.log.fatal({ kind, error: crashError(err), ...currentWorkContext(), crashes }, `${options.component} crashed: draining and exiting`);
    if (crashes === 1) options.stop(EXIT_CRASHED);
  };
  const onException = handler('uncaught_exception');
  const onRejection = handler('unhandled_rejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return {
    crashes: () => crashes,
    uninstall() {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
    },
  };
}
