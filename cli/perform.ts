import type { Command } from 'commander';
import type { Reply } from './output';
import type { Runtime } from './runtime';

/** Runs a verb's work against a fresh runtime, prints its answer or its failure, and records the exit code (cli/program.ts). */
export type Perform = (command: Command, work: (rt: Runtime) => Promise<Reply>) => Promise<void>;
