/**
 * One operating cycle of an asset: its cycle number (age since new or since the last overhaul)
 * and the value of each sensor for that cycle (for C-MAPSS, s1..s21 as recorded).
 */
export interface CycleRecord {
  readonly cycle: number;
  readonly sensors: Readonly<Record<string, number>>;
}

/** Why no prediction was made. The prognostics module never invents a number in these cases. */
export type InsufficientData =
  | { readonly reason: 'too_few_cycles'; readonly required_cycles: number; readonly available_cycles: number }
  | { readonly reason: 'missing_sensors'; readonly sensors: readonly string[] }
  | { readonly reason: 'invalid_series'; readonly detail: string };
