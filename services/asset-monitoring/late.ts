import { ToleranceBand } from '../../domain/assets/band';
import { Reading } from '../../domain/assets/excursion';
import { judgeLateReadings } from '../../domain/assets/late-readings';
import { alertsSince } from '../../db/queries/alerts';
import { BaselineRow } from '../../db/queries/baselines';
import { readingsSince, seriesKey } from '../../db/queries/readings';
import { applyLateJudgements, JudgementCounts, LateSeriesJudgement } from './judge';
import { MonitoringUnit } from './unit';

/** The batch's series with an active baseline, by seriesKey, with their bands. */
export type BaselinedSeries = ReadonlyMap<string, { baseline: BaselineRow; band: ToleranceBand }>;

/**
 * Judges the batch's late readings (older than their series' newest) at their own time
 * (domain/assets/late-readings.ts), after the newer readings were judged. Costs two statements
 * per batch that has late readings of a baselined series, none otherwise. Like the newer readings,
 * they are judged against the series' active baseline, whatever their time.
 */
export async function judgeLate(unit: MonitoringUnit, lateBySeries: ReadonlyMap<string, readonly Reading[]>, baselined: BaselinedSeries): Promise<JudgementCounts> {
  const series = [...lateBySeries].flatMap(([k, late]) => {
    const found = baselined.get(k);
    if (!found) return [];
    const { asset_id, parameter } = found.baseline;
    return [{ key: k, asset_id, parameter, since: new Date(Math.min(...late.map((r) => r.t))), late, ...found }];
  });
  if (series.length === 0) return { raised: 0, resolved: 0 };
  const tenantId = unit.scope.tenantId;
  const stored = groupBy(await readingsSince(unit.tx, tenantId, series), (p) => ({ t: new Date(p.ts).getTime(), value: p.value }));
  const alerts = groupBy(await alertsSince(unit.tx, tenantId, series), (a) => a);
  const judgements = series.map((s): LateSeriesJudgement => {
    const recorded = alerts.get(s.key) ?? [];
    return {
      assetId: s.asset_id,
      parameter: s.parameter,
      baseline: s.baseline,
      band: s.band,
      alerts: new Map(recorded.map((a) => [a.id, a])),
      judgements: judgeLateReadings(
        s.band,
        s.late,
        stored.get(s.key) ?? [],
        recorded.map((a) => ({ id: a.id, raisedAt: new Date(a.raised_at).getTime(), resolvedAt: a.resolved_at ? new Date(a.resolved_at).getTime() : null })),
      ),
    };
  });
  return applyLateJudgements(unit, judgements);
}

function groupBy<R extends { asset_id: string; parameter: string }, T>(rows: readonly R[], map: (row: R) => T): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = seriesKey(row);
    const group = groups.get(k);
    if (group) group.push(map(row));
    else groups.set(k, [map(row)]);
  }
  return groups;
}
