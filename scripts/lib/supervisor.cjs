'use strict';
// Keeps an application process (API, worker) of `npm run up` running: when it exits on its own,
// a loud line is logged and it is started again after a growing delay (1 s, 2 s, 4 s ... 30 s;
// back to 1 s once a run has lasted a minute). A process that stops answering its liveness probe
// (its event loop stuck: it no longer exits by itself) is killed after `failures` probes in a row
// and so restarted the same way. What a container orchestrator does in production
// (docs/PRODUCTION.md); here one crashing or hanging request must not stop the whole stack.
// Node built-ins only.
const http = require('node:http');

const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 60_000;
/** The liveness probe as Kubernetes runs it (deploy/k8s): every 5 s, 2 s to answer, 3 failures in a row. */
const LIVENESS = { intervalMs: 5_000, timeoutMs: 2_000, failures: 3 };

/** SIGKILL to the child's process group (ProcessRunner starts each child as a group leader): a hung loop handles no SIGTERM. */
function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

/** Whether GET `url` answers 2xx within `timeoutMs`. */
function probe(url, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 300);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
  });
}

/**
 * @param {{
 *   name: string,
 *   start: () => { pid?: number, exited: Promise<{ code: number | null, signal: string | null }> },
 *   isStopping: () => boolean,
 *   log: (text: string) => void,
 *   sleep?: (ms: number) => Promise<void>,
 *   now?: () => number,
 *   liveness?: { url: string, intervalMs?: number, timeoutMs?: number, failures?: number },
 * }} options
 * @param {{ pid?: number, exited: Promise<{ code: number | null, signal: string | null }> }} first the child already started
 * @returns {{ restarts: () => number, replacedHung: () => number }}
 */
function superviseProcess(options, first) {
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  let delay = FIRST_DELAY_MS;
  let restarts = 0;
  let replacedHung = 0;

  // Judged only once it has answered: a process still starting (the worker bundles for seconds) is not hung.
  const watchLiveness = (child) => {
    const { url } = options.liveness;
    const { intervalMs, timeoutMs, failures } = { ...LIVENESS, ...options.liveness };
    let exited = false;
    child.exited.then(() => (exited = true));
    void (async () => {
      let answered = false;
      let missed = 0;
      while (!exited && !options.isStopping()) {
        await new Promise((resolve) => setTimeout(resolve, intervalMs).unref());
        if (exited || options.isStopping()) return;
        const ok = await probe(url, timeoutMs);
        if (ok) {
          answered = true;
          missed = 0;
          continue;
        }
        if (!answered || exited) continue;
        missed += 1;
        if (missed < failures) continue;
        options.log(`✗ ${options.name} stopped answering ${url} (${missed} probes in a row, ${timeoutMs / 1000} s each); replacing it`);
        replacedHung += 1;
        killGroup(child);
        return;
      }
    })();
  };

  const watch = (child, startedAt) => {
    if (options.liveness) watchLiveness(child);
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
  return { restarts: () => restarts, replacedHung: () => replacedHung };
}

module.exports = { superviseProcess, FIRST_DELAY_MS, MAX_DELAY_MS, STABLE_AFTER_MS, LIVENESS };
