// Types for ephemeral-stack.cjs.
import type { ProcessRunner } from './process-runner.cjs';

export interface EphemeralStack {
  env: Record<string, string>;
  runner: ProcessRunner;
  tmpDir: string;
  stop(): Promise<void>;
}

export declare function startEphemeralStack(options: {
  root: string;
  runDir: string;
  log: (text: string) => void;
  worker?: boolean;
  /** The dev server's SQLite in this file instead of in memory (left in place after the stop). */
  temporalDbFile?: string | null;
  extraEnv?: Record<string, string>;
  beforeWorker?: (ctx: { tmpDir: string; env: Record<string, string>; runner: ProcessRunner }) => Promise<Record<string, string> | void>;
}): Promise<EphemeralStack>;
