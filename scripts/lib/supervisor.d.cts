// Types for supervisor.cjs.
export interface SupervisedChild {
  pid?: number;
  exited: Promise<{ code: number | null; signal: string | null }>;
}
export interface LivenessProbe {
  /** GET, 2xx within timeoutMs is alive. */
  url: string;
  intervalMs?: number;
  timeoutMs?: number;
  /** Probes missed in a row, after a first answer, that get the process killed and restarted. */
  failures?: number;
}
export declare function superviseProcess(
  options: {
    name: string;
    start: () => SupervisedChild;
    isStopping: () => boolean;
    log: (text: string) => void;
    sleep?: (ms: number) => Promise<void>;
    now?: () => number;
    liveness?: LivenessProbe;
  },
  first: SupervisedChild,
): { restarts: () => number; replacedHung: () => number };
export declare const FIRST_DELAY_MS: number;
export declare const MAX_DELAY_MS: number;
export declare const STABLE_AFTER_MS: number;
export declare const LIVENESS: Required<Omit<LivenessProbe, 'url'>>;
