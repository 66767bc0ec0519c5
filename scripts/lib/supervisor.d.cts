// Types for supervisor.cjs.
export interface SupervisedChild {
  exited: Promise<{ code: number | null; signal: string | null }>;
}
export declare function superviseProcess(
  options: { name: string; start: () => SupervisedChild; isStopping: () => boolean; log: (text: string) => void; sleep?: (ms: number) => Promise<void>; now?: () => number },
  first: SupervisedChild,
): { restarts: () => number };
export declare const FIRST_DELAY_MS: number;
export declare const MAX_DELAY_MS: number;
export declare const STABLE_AFTER_MS: number;
