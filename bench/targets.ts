/**
 * The target lines of the benchmarks, in one table: each bench's verdict reads its line here, and
 * the chart (bench/chart.ts) draws each figure against it. A figure is what the bench prints under
 * `key`. A ratio target's line is a ratio to its floor or ceiling; an absolute target's line is a
 * limit in the figure's own unit, drawn as a share of it.
 */

/** How a figure meets its line: at most (<=), at least (>=), or under (<). */
export type Bound = 'at most' | 'at least' | 'under';

export interface TargetLine {
  readonly bench: string;
  readonly key: string;
  readonly label: string;
  readonly line: number;
  readonly bound: Bound;
  /** An absolute limit (seconds, milliseconds, MiB) rather than a ratio to a floor or ceiling. */
  readonly absolute?: true;
}

export const TARGETS = {
  listP99: { bench: 'http', key: 'floor_p99_ratio', label: 'authenticated list p99 / floor', line: 1.25, bound: 'at most' },
  ingest: { bench: 'assets', key: 'gateway_to_floor_ratio', label: 'gateway ingest / floor', line: 0.7, bound: 'at least' },
  deliveries: { bench: 'webhooks', key: 'ratio_to_ceiling', label: 'webhook deliveries / ceiling', line: 0.7, bound: 'at least' },
  burst: { bench: 'webhooks', key: 'burst_p99_to_drain_time', label: 'burst p99 / its drain time', line: 1.2, bound: 'at most' },
  paced: { bench: 'webhooks', key: 'first_attempt_p99_ms', label: 'paced p99 / 1 s', line: 1000, bound: 'under', absolute: true },
  kill: { bench: 'kill', key: 'kill_to_no_kill_ratio', label: 'burst with a worker killed / without', line: 1.5, bound: 'at most' },
  export: { bench: 'export', key: 'export_100k_seconds', label: 'export of 100 000 rows / 30 s', line: 30, bound: 'under', absolute: true },
  due: { bench: 'due', key: 'plans_to_ceiling_ratio', label: 'plans due at once / ceiling', line: 0.7, bound: 'at least' },
  executeP50: { bench: 'maintenance', key: 'floor_p50_ratio', label: 'execute p50 / floor', line: 1.25, bound: 'at most' },
  executeP99: { bench: 'maintenance', key: 'floor_p99_ratio', label: 'execute p99 / floor', line: 1.25, bound: 'at most' },
  idleRss: { bench: 'maintenance', key: 'worker_rss_after_mib', label: 'worker RSS with idle plans / 1 GiB', line: 1024, bound: 'under', absolute: true },
} as const satisfies Record<string, TargetLine>;

/** Whether a figure meets its target's line. */
export function meets(target: Pick<TargetLine, 'line' | 'bound'>, figure: number): boolean {
  if (target.bound === 'at most') return figure <= target.line;
  if (target.bound === 'at least') return figure >= target.line;
  return figure < target.line;
}
