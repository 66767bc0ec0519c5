/**
 * Faults the test stack injects into a real process to prove its crash and stall policy
 * (config.testFaults: APP_ENV=test only, refused anywhere else). Each fires on the next turn of
 * the event loop, still inside the async context of the request or activity that asked for it,
 * as a parser's callback that throws or loops would.
 */
import { FAULT_KINDS, type FaultKind } from './config';

export function isFaultKind(value: string): value is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(value);
}

export function fireFault(kind: FaultKind): void {
  setImmediate(() => {
    if (kind === 'uncaught_exception') throw new Error('injected fault: an exception nothing catches');
    if (kind === 'unhandled_rejection') {
      void Promise.reject(new Error('injected fault: a rejection nothing handles'));
      return;
    }
    // A parser in an endless loop: nothing on this thread runs again.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
  });
}
