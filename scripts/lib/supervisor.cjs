'use strict';
// Keeps an application process (API, worker) of `npm run up` running: when it exits on its own,
// a loud line is logged and it is started again after a growing delay (1 s, 2 s, 4 s ... 30 s;
// back to 1 s once a run has lasted a minute). What a container orchestrator does in production
// (docs/PRODUCTION.md); here one crashing request must not stop the whole stack.
// Node built-ins only.

const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 60_000;

/**
 * @param {{
 *   name: string,
 *   start: () => { exited: Promise<{ code: number | null, signal: string | null }> },
 *   isStopping: () => boolean,
 *   log: (text: string) => void,
 *   sleep?: (ms: number) => Promise<void>,
 *   now?: () => number,
 * }} options
 * @param {{ exited: Promise<{ code: number | null, signal: string | null }> }} first the child already started
 * @returns {{ restarts: () => number }}
 */
function superviseProcess(options, first) {
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  let delay = FIRST_DELAY_MS;
  let restarts = 0;
  const watch = (child, startedAt) => {
    child.exited.then(async ({ code, signal }) => {
      if (options.isStopping()) return;
      if (now() - startedAt >= STABLE_AFTER_MS) delay = FIRST_DELAY_MS;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      options.log(`✗ ${options.name} exited unexpectedly (${how}); restarting it in ${delay / 1000} s (restart ${restarts + 1})`);
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
      if (options.isStopping()) return;
      restarts += 1;
      watch(options.start(), now());
    });
  };
  watch(first, now());
  return { restarts: () => restarts };
}

module.exports = { superviseProcess, FIRST_DELAY_MS, MAX_DELAY_MS, STABLE_AFTER_MS };
