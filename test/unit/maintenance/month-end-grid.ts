/**
 * The fixed monthly grid anchored on 2024-01-31, 14 occurrences: each month's last day (Feb 29 in
 * the leap year, Feb 28 after it), never drifting to the 29th. The calendar arithmetic and the
 * schedule that runs on it must both give it.
 */
export const MONTH_END_GRID_FROM_2024_01_31 = [
  '2024-01-31',
  '2024-02-29',
  '2024-03-31',
  '2024-04-30',
  '2024-05-31',
  '2024-06-30',
  '2024-07-31',
  '2024-08-31',
  '2024-09-30',
  '2024-10-31',
  '2024-11-30',
  '2024-12-31',
  '2025-01-31',
  '2025-02-28',
];
