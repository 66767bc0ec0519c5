// Types for process-runner.cjs (plain Node so `npm run up` can load it before `npm install`).
import type { ChildProcess } from 'node:child_process';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the command could not be spawned at all (ENOENT, EACCES). */
  error: Error | null;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Print output lines prefixed with the name (default true). */
  echo?: boolean;
  /** Append raw output lines to this file. */
  logFile?: string;
}

export declare class ManagedChild {
  readonly name: string;
  readonly process: ChildProcess;
  /** Also the id of its process group. */
  readonly pid: number;
  readonly exitInfo: ExitInfo | null;
  readonly exited: Promise<ExitInfo>;
  /** Resolves when stdout/stderr are closed too. */
  readonly closed: Promise<void>;
  readonly running: boolean;
  onLine(listener: (line: string) => void): () => void;
  recentLines(): string[];
  describeRecent(): string;
  /** SIGTERM to the process group, SIGKILL after the runner's grace period. */
  stop(): Promise<void>;
}

export declare class ProcessRunner {
  constructor(options?: { log?: (text: string) => void; graceMs?: number; colors?: boolean });
  readonly log: (text: string) => void;
  readonly graceMs: number;
  readonly stopping: boolean;
  output(name: string, options?: { echo?: boolean; logFile?: string }): (text: string) => void;
  start(name: string, command: string, args?: string[], options?: StartOptions): ManagedChild;
  run(name: string, command: string, args?: string[], options?: StartOptions): Promise<string[]>;
  register(name: string, stop: () => Promise<void>, options?: { pid?: number; exitSignal?: NodeJS.Signals }): () => Promise<void>;
  stopAll(): Promise<void>;
  runningChildren(): ManagedChild[];
  installSignalHandlers(options?: { onStopped?: (signal: NodeJS.Signals, error: Error | null) => void }): () => void;
  uninstallSignalHandlers(): void;
}

export declare function waitForLine(child: ManagedChild, predicate: (line: string) => boolean, timeoutMs: number, description?: string): Promise<string>;
export declare function pinoMsg(msg: string): (line: string) => boolean;
export declare function parsePinoLine(line: string): Record<string, unknown> | null;
/** pino-pretty's form of a pino line (the line as it is for others, or while pino-pretty is not installed). */
export declare function formatLine(line: string, options?: { colors?: boolean }): string;
export declare function isProcessAlive(pid: number): boolean;
export declare function isGroupAlive(pgid: number): boolean;
