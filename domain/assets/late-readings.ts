import { bandPosition, deviationRatio, ToleranceBand } from './band';
import { Excursion, Reading } from './excursion';

/**
 * Late readings (older than their series' newest) judged at their own time: a gateway flushing
 * its buffer after an outage delivers the excursion it buffered after newer readings arrived.
 * Each late reading outside the band is placed on the series' recorded course:
 *
 * - inside a recorded alert (raised at or before it, not resolved before it): that alert's
 *   excursion; it may raise its peak, and never reopens a resolved alert;
 * - otherwise it starts an excursion of its own, raised at its time, which runs through the
 *   series' stored readings after it until the first one back inside (its resolution), or until
 *   it reaches a recorded alert (the same excursion, which therefore started at the late reading).
 *
 * A late reading inside the band changes no recorded alert: an alert's course is not split after
 * the fact (it can end an excursion that a late reading started).
 */

/** A recorded alert of the series, as far as placing a reading on its course goes. */
export interface RecordedAlert {
  readonly id: string;
  /** Epoch milliseconds. */
  readonly raisedAt: number;
  readonly resolvedAt: number | null;
}

export type LateJudgement =
  /** Late readings outside the band within a recorded alert's excursion. */
  | { readonly kind: 'extend'; readonly alertId: string; readonly readings: readonly Reading[] }
  /** An excursion a late reading started (resolved when `ended`, else lasting). */
  | { readonly kind: 'raise'; readonly excursion: Excursion }
  /** An excursion a late reading started that runs into a recorded alert: that alert started earlier. */
  | { readonly kind: 'backdate'; readonly alertId: string; readonly excursion: Excursion };

/**
 * @param late the late readings of the series (any order)
 * @param series the series' stored readings from the first late one on (any order; the late ones included)
 * @param alerts the series' alerts not resolved before the first late reading
 */
export function judgeLateReadings(band: ToleranceBand, late: readonly Reading[], series: readonly Reading[], alerts: readonly RecordedAlert[]): LateJudgement[] {
  const byTime = (a: Reading, b: Reading) => a.t - b.t;
  const course = [...series].sort(byTime);
  const recorded = [...alerts].sort((a, b) => a.raisedAt - b.raisedAt);
  const result: LateJudgement[] = [];
  const extended = new Map<string, Reading[]>();
  /** The end of the last excursion built here: later late readings before it are already in it. */
  let builtUntil = -Infinity;

  for (const reading of [...late].sort(byTime)) {
    const position = bandPosition(reading.value, band);
    if (position === 'inside' || reading.t < builtUntil) continue;
    const within = recorded.find((a) => a.raisedAt <= reading.t && (a.resolvedAt === null || reading.t < a.resolvedAt));
    if (within) {
      extended.set(within.id, [...(extended.get(within.id) ?? []), reading]);
      continue;
    }
    const next = recorded.find((a) => a.raisedAt > reading.t) ?? null;
    let peakValue = reading.value;
    let lastOutside = reading;
    let ended: Reading | null = null;
    let reached: RecordedAlert | null = null;
    for (const r of course) {
      if (r.t <= reading.t) continue;
      if (next && r.t >= next.raisedAt) {
        reached = next;
        break;
      }
      if (bandPosition(r.value, band) === 'inside') {
        ended = r;
        break;
      }
      if (deviationRatio(r.value, band) > deviationRatio(peakValue, band)) peakValue = r.value;
      lastOutside = r;
    }
    const excursion: Excursion = { started: reading, direction: position, peakValue, lastOutside, ended };
    if (reached) {
      result.push({ kind: 'backdate', alertId: reached.id, excursion });
      builtUntil = reached.raisedAt; // from there on, late readings are within the reached alert
    } else {
      result.push({ kind: 'raise', excursion });
      builtUntil = ended ? ended.t : Infinity;
    }
  }
  for (const [alertId, readings] of extended) result.push({ kind: 'extend', alertId, readings });
  return result;
}
