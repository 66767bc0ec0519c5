import { round2, ToleranceBand } from '../../domain/assets/band';
import { Excursion, foldReadings, Reading, severityOf } from '../../domain/assets/excursion';
import { ALERT_COLUMNS, AlertRow } from '../../db/queries/alerts';
import { BaselineRow } from '../../db/queries/baselines';
import { ALERT_RAISED, ALERT_RESOLVED, MonitoringUnit } from './unit';
import { isoTime } from '../../domain/time';

/** One series to judge: its active baseline (as a band), its unresolved alert, and the readings to fold. */
export interface SeriesJudgement {
  readonly assetId: string;
  readonly parameter: string;
  readonly baseline: BaselineRow;
  readonly band: ToleranceBand;
  readonly open: AlertRow | null;
  readonly readings: readonly Reading[];
}

export interface JudgementCounts {
  raised: number;
  resolved: number;
}

/** Folds each series' readings into its alerts: raises, updates and resolves them, with their outbox events. */
export async function applyJudgements(unit: MonitoringUnit, judgements: readonly SeriesJudgement[]): Promise<JudgementCounts> {
  const counts: JudgementCounts = { raised: 0, resolved: 0 };
  for (const j of judgements) {
    const open = j.open ? { direction: j.open.direction, peakValue: j.open.peak_value } : null;
    for (const excursion of foldReadings(open, j.band, j.readings)) {
      const alert = excursion.started ? await raise(unit, j, excursion) : await continueOpen(unit, j, excursion);
      if (excursion.started) counts.raised += 1;
      if (excursion.ended) {
        counts.resolved += 1;
        unit.emit(
          ALERT_RESOLVED,
          {
            alert_id: alert.id,
            asset_id: j.assetId,
            parameter: j.parameter,
            value: excursion.ended.value,
            peak_value: alert.peak_value,
            raised_at: isoTime(alert.raised_at),
            resolved_at: isoTime(excursion.ended.t),
          },
          { occurredAt: new Date(excursion.ended.t), idempotencyKey: `asset-alert:${alert.id}:resolved` },
        );
      }
    }
  }
  return counts;
}

function resolution(excursion: Excursion) {
  return excursion.ended ? { status: 'resolved', resolved_at: new Date(excursion.ended.t), resolved_value: excursion.ended.value } : {};
}

async function raise(unit: MonitoringUnit, j: SeriesJudgement, excursion: Excursion): Promise<AlertRow> {
  const started = excursion.started as Reading;
  const lastOutside = excursion.lastOutside ?? started;
  const [alert]: AlertRow[] = await unit.scope.insert(
    'asset_alerts',
    {
      asset_id: j.assetId,
      baseline_id: j.baseline.id,
      parameter: j.parameter,
      status: 'open',
      direction: excursion.direction,
      severity: severityOf(excursion.peakValue, j.band),
      baseline_value: j.band.baseline,
      lower_bound: j.band.lower,
      upper_bound: j.band.upper,
      value: started.value,
      peak_value: excursion.peakValue,
      last_value: lastOutside.value,
      raised_at: new Date(started.t),
      last_reading_at: new Date(lastOutside.t),
      ...resolution(excursion),
    },
    [...ALERT_COLUMNS],
  );
  unit.emit(
    ALERT_RAISED,
    {
      alert_id: alert.id,
      asset_id: j.assetId,
      parameter: j.parameter,
      value: started.value,
      baseline_value: j.band.baseline,
      tolerance_percent: round2(j.band.tolerancePercent),
      lower_bound: j.band.lower,
      upper_bound: j.band.upper,
      direction: excursion.direction,
      severity: alert.severity,
      raised_at: isoTime(started.t),
    },
    { occurredAt: new Date(started.t), idempotencyKey: `asset-alert:${alert.id}:raised` },
  );
  return alert;
}

async function continueOpen(unit: MonitoringUnit, j: SeriesJudgement, excursion: Excursion): Promise<AlertRow> {
  const existing = j.open as AlertRow;
  const [alert]: AlertRow[] = await unit.scope
    .table('asset_alerts')
    .where('id', existing.id)
    .update({
      peak_value: excursion.peakValue,
      severity: severityOf(excursion.peakValue, j.band),
      ...(excursion.lastOutside ? { last_value: excursion.lastOutside.value, last_reading_at: new Date(excursion.lastOutside.t) } : {}),
      ...resolution(excursion),
      updated_at: new Date(),
    })
    .returning([...ALERT_COLUMNS]);
  return alert as AlertRow;
}
