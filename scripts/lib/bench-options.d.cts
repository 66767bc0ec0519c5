// Types for bench-options.cjs.

/** Every bench of bench/run.ts, in its order. */
export declare const BENCHES: readonly string[];
/** Each Temporal flag and the environment variable it sets. */
export declare const TEMPORAL_FLAGS: Readonly<Record<string, string>>;
export declare const MAX_WORKERS: number;
export declare const USAGE: string;

export type BenchOptions =
  | { help: true; usage: string }
  | {
      help: false;
      benches: string[];
      workers: number;
      /** What the bench process reads (BENCH_DUE_PLANS). */
      env: Record<string, string>;
      /** The connection variables of the operator's cluster, or null for the dev server. */
      temporal: Record<string, string> | null;
    };

export declare function parseBenchOptions(argv: readonly string[], env?: Record<string, string | undefined>): BenchOptions;
