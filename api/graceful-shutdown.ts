import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../infra/config';

/**
 * Whether this process is going away: /readyz answers 503 from the first moment of a stop, so a
 * load balancer or Kubernetes stops sending new requests before the server stops accepting them.
 */
export interface Lifecycle {
  readonly draining: boolean;
  startDraining(): void;
}

export function createLifecycle(): Lifecycle {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    startDraining() {
      draining = true;
    },
  };
}

/**
 * The API server's stop timings (API_SHUTDOWN_DELAY_MS, API_SHUTDOWN_GRACE_MS): delayMs with
 * readiness already 503 and new requests still served, the time a balancer needs to notice; then
 * graceMs at most for the requests in flight before their connections are closed.
 */
export type ShutdownTimings = Config['api']['shutdown'];

/**
 * The requests a server is answering. Once `closing()` ran, every answer not yet started carries
 * `Connection: close`, so a keep-alive client opens its next connection elsewhere instead of
 * finding this one closed under it.
 */
export interface InFlightRequests {
  listener: http.RequestListener;
  count(): number;
  closing(): void;
  /** Resolves when no request is in flight (at once when none is). */
  settled(): Promise<void>;
}

export function trackInFlight(handler: http.RequestListener): InFlightRequests {
  const open = new Set<http.ServerResponse>();
  let isClosing = false;
  let waiters: (() => void)[] = [];
  const askToClose = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  return {
    listener(req, res) {
      open.add(res);
      if (isClosing) askToClose(res);
      res.once('close', () => {
        open.delete(res);
        if (open.size > 0) return;
        for (const resolve of waiters) resolve();
        waiters = [];
      });
      handler(req, res);
    },
    count: () => open.size,
    closing() {
      isClosing = true;
      open.forEach(askToClose);
    },
    settled: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

/**
 * Stops a server without cutting a request off: readiness flips first, requests are still served
 * for `delayMs`, then the server stops accepting connections and waits up to `graceMs` for the
 * requests in flight. Resolves with the number of requests still unanswered at the end (their
 * connections are closed then), 0 on a clean drain.
 */
export async function drainServer(server: http.Server, requests: InFlightRequests, lifecycle: Lifecycle, timings: ShutdownTimings): Promise<number> {
  lifecycle.startDraining();
  await sleep(timings.delayMs);
  requests.closing();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await Promise.race([requests.settled(), sleep(timings.graceMs, undefined, { ref: false })]);
  const cut = requests.count();
  // Idle keep-alive connections (their last answer said `Connection: close`) and, past the grace, the stragglers.
  server.closeAllConnections();
  await closed;
  return cut;
}
