/**
 * Content work (redaction threads, mail parsing threads, the sandbox's child processes) runs below
 * the event loop's priority, so on a busy machine the kernel gives the thread that answers
 * probes and other tenants the CPU first and the content waits (docs/SECURITY.md,
 * Untrusted files). Linux keeps a nice value per thread: a worker thread lowers its own; a child process
 * is started under `nice`. Elsewhere, or where the host refuses, the default priority stays.
 */
import fs from 'node:fs';
import os from 'node:os';

/** The nice value of content work: its CPU weight is about a tenth of the event loop's. */
export const BACKGROUND_NICE = 10;

/** Self-contained (it only uses its arguments) so that a thread started from source text can run it too. */
function lowerPriorityOfThisThread(fsModule: typeof fs, osModule: typeof os, nice: number): void {
  if (process.platform !== 'linux') return;
  try {
    // /proc/thread-self names this thread: `<pid>/task/<tid>`; setpriority on a tid moves that thread only.
    const tid = Number(fsModule.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) osModule.setPriority(tid, nice);
  } catch {
    // Best effort: the work still runs, at the default priority.
  }
}

/** Lowers the calling thread (a worker thread's, never the event loop's) to BACKGROUND_NICE. */
export function lowerThisThreadPriority(): void {
  lowerPriorityOfThisThread(fs, os, BACKGROUND_NICE);
}

/** The same as a statement for a thread started with `new Worker(source, { eval: true })`. */
export const LOWER_THIS_THREAD_PRIORITY_JS = `(${lowerPriorityOfThisThread.toString()})(require('node:fs'), require('node:os'), ${BACKGROUND_NICE});`;

/** The argv prefix that starts a child process at BACKGROUND_NICE (all of its threads inherit it). */
export function backgroundCommand(command: readonly string[]): string[] {
  return process.platform === 'linux' ? ['nice', '-n', String(BACKGROUND_NICE), ...command] : [...command];
}
