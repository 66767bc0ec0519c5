/**
 * The state of a process's dependencies (PostgreSQL, Temporal, the object store), each probed with
 * a deadline. The API's `/internal/health` (service token: latencies and error summaries) and the
 * `/readyz` of the API and the worker (no token: ready or not, and the names of the parts that are
 * down; nothing else) read it.
 */
import type { Knex } from 'knex';
import { errorSummary } from './error-chain';
import { ObjectStore, withTimeout } from './object-store';
import { cachedFor } from './ttl-cache';
import type { TemporalGateway } from './temporal';

export interface Dependencies {
  db: Knex;
  temporal: Pick<TemporalGateway, 'ping'>;
  objectStore: Pick<ObjectStore, 'ping'>;
}

export const CHECK_TIMEOUT_MS = 2_000;

export type ComponentStatus = { status: 'up'; latency_ms: number } | { status: 'down'; latency_ms: number; detail: string };

export interface DependencyHealth {
  components: { postgres: ComponentStatus; temporal: ComponentStatus; object_store: ComponentStatus };
  down: string[];
}

async function check(probe: () => Promise<unknown>): Promise<ComponentStatus> {
  const started = Date.now();
  try {
    await withTimeout(probe(), CHECK_TIMEOUT_MS, `no answer within ${CHECK_TIMEOUT_MS} ms`);
    return { status: 'up', latency_ms: Date.now() - started };
  } catch (err) {
    return { status: 'down', latency_ms: Date.now() - started, detail: errorSummary(err) };
  }
}

export async function checkDependencies(deps: Dependencies): Promise<DependencyHealth> {
  const [postgres, temporal, object_store] = await Promise.all([
    check(() => deps.db.raw('select 1')),
    check(() => deps.temporal.ping(CHECK_TIMEOUT_MS)),
    check(() => deps.objectStore.ping(CHECK_TIMEOUT_MS)),
  ]);
  const components = { postgres, temporal, object_store };
  return {
    components,
    down: Object.entries(components)
      .filter(([, c]) => c.status === 'down')
      .map(([name]) => name),
  };
}

/**
 * The same, remembered for `ttlMs`: an unauthenticated probe cannot make this process hit its
 * dependencies more than once per period, however often it is called.
 */
export function cachedDependencyCheck(deps: Dependencies, ttlMs = 1_000): () => Promise<DependencyHealth> {
  return cachedFor(ttlMs, () => checkDependencies(deps));
}
