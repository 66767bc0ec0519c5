import { bandPosition, deviationRatio, ToleranceBand } from './band';

/**
 * Baseline excursions: the life of an alert, decided by readings only. A reading outside the band
 * starts an excursion (alert raised) unless one is already open for the parameter; the first
 * reading back inside ends it (alert resolved). Readings are folded in device-time order, and the
 * caller passes only readings newer than the latest one already judged; late readings are placed
 * on the recorded course by late-readings.ts (README.md).
 */

export type Direction = 'above' | 'below';
export type AlertSeverity = 'warning' | 'critical';

/** An excursion still open before this fold (an unresolved alert). */
export interface OpenExcursion {
  readonly direction: Direction;
  readonly peakValue: number;
}

export interface Reading {
  /** Epoch milliseconds (device time). */
  readonly t: number;
  readonly value: number;
}

export interface Excursion {
  /** The reading that started it; null when it was already open before this fold. */
  readonly started: Reading | null;
  /** Direction of the starting reading (kept from the open excursion when it continues). */
  readonly direction: Direction;
  /** The reading furthest from the baseline while outside. */
  readonly peakValue: number;
  /** The last reading outside the band. */
  readonly lastOutside: Reading | null;
  /** The reading back inside that ended it; null while it lasts. */
  readonly ended: Reading | null;
}

/** Beyond twice the tolerance an excursion is critical, otherwise a warning. */
export const CRITICAL_RATIO = 2;

export function severityOf(peakValue: number, band: ToleranceBand): AlertSeverity {
  return deviationRatio(peakValue, band) > CRITICAL_RATIO ? 'critical' : 'warning';
}

/**
 * Folds readings (any order; sorted here by time) into the excursions they touch: at most one
 * continuing the open excursion, then any new ones. Readings inside the band with nothing open
 * produce nothing.
 */
export function foldReadings(open: OpenExcursion | null, band: ToleranceBand, readings: readonly Reading[]): Excursion[] {
  const ordered = [...readings].sort((a, b) => a.t - b.t);
  const result: Excursion[] = [];
  let current: { started: Reading | null; direction: Direction; peakValue: number; lastOutside: Reading | null } | null = open
    ? { started: null, direction: open.direction, peakValue: open.peakValue, lastOutside: null }
    : null;
  let touched = false;

  for (const reading of ordered) {
    const position = bandPosition(reading.value, band);
    if (position === 'inside') {
      if (current) {
        result.push({ ...current, ended: reading });
        current = null;
        touched = false;
      }
      continue;
    }
    if (!current) {
      current = { started: reading, direction: position, peakValue: reading.value, lastOutside: reading };
    } else {
      if (deviationRatio(reading.value, band) > deviationRatio(current.peakValue, band)) current.peakValue = reading.value;
      current.lastOutside = reading;
    }
    touched = true;
  }
  if (current && touched) result.push({ ...current, ended: null });
  return result;
}
