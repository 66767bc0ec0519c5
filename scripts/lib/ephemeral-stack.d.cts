// Types for ephemeral-stack.cjs.
import type { ProcessRunner } from './process-runner.cjs';

export interface EphemeralStack {
  env: Record<string, string>;
  /** The caller's environment less its Temporal connection variables, with `env` over it: what the stack's processes get. */
  processEnv(): Record<string, string>;
  /** The worker processes' pids, in the order started. */
  workerPids(): number[];
  postgresPid: number;
  /** The dev server's pid and /metrics URL; null on a cluster of the caller's. */
  temporalPid: number | null;
  temporalMetricsUrl: string | null;
  runner: ProcessRunner;
  tmpDir: string;
  stop(): Promise<void>;
}

export declare function startEphemeralStack(options: {
  root: string;
  runDir: string;
  log: (text: string) => void;
  worker?: boolean;
  /** How many worker processes (1); none when `worker` is false. */
  workers?: number;
  /** The connection variables of a running Temporal cluster, used instead of a dev server. */
  temporal?: Record<string, string> | null;
  /** More PostgreSQL settings, `name=value`. */
  postgresSettings?: string[];
  /** The dev server's SQLite in this file instead of in memory (left in place after the stop). */
  temporalDbFile?: string | null;
  extraEnv?: Record<string, string>;
  beforeWorker?: (ctx: { tmpDir: string; env: Record<string, string>; runner: ProcessRunner }) => Promise<Record<string, string> | void>;
}): Promise<EphemeralStack>;
