import type { Condition, HealthStatus } from '../../../domain/assets/health';

/**
 * SPEC.md's score bands at each edge, read as a health status and as a condition (the condition
 * has no `excellent`: good covers 71..100). Shared by the health and the condition tests.
 */
export const SCORE_BANDS: ReadonlyArray<readonly [score: number, status: HealthStatus, condition: Condition]> = [
  [0, 'critical', 'critical'],
  [25, 'critical', 'critical'],
  [26, 'poor', 'poor'],
  [50, 'poor', 'poor'],
  [51, 'fair', 'fair'],
  [70, 'fair', 'fair'],
  [71, 'good', 'good'],
  [90, 'good', 'good'],
  [91, 'excellent', 'good'],
  [100, 'excellent', 'good'],
];
