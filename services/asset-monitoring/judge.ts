import { deviationRatio, round2, ToleranceBand } from '../../domain/assets/band';
import type { LateJudgement } from '../../domain/assets/late-readings';
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
      noteExcursion(unit, j, alert, excursion, counts);
    }
  }
  return counts;
}

/** Counts a raised or resolved excursion; a resolution is announced (its time is the reading's). */
function noteExcursion(unit: MonitoringUnit, j: Pick<SeriesJudgement, 'assetId' | 'parameter'>, alert: AlertRow, excursion: Excursion, counts: JudgementCounts): void {
  if (excursion.started) counts.raised += 1;
  if (!excursion.ended) return;
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

/** One series' late readings placed on its recorded course (domain/assets/late-readings.ts). */
export interface LateSeriesJudgement {
  readonly assetId: string;
  readonly parameter: string;
  readonly baseline: BaselineRow;
  readonly band: ToleranceBand;
  /** Its alerts not resolved before the first late reading, by id. */
  readonly alerts: ReadonlyMap<string, AlertRow>;
  readonly judgements: readonly LateJudgement[];
}

/**
 * Applies late judgements: an excursion of its own is raised (and resolved) at its readings' times;
 * a recorded alert takes a late peak, or an earlier start, and keeps its status (never reopened).
 */
export async function applyLateJudgements(unit: MonitoringUnit, series: readonly LateSeriesJudgement[]): Promise<JudgementCounts> {
  const counts: JudgementCounts = { raised: 0, resolved: 0 };
  for (const s of series) {
    const j: SeriesJudgement = { ...s, open: null, readings: [] };
    const current = new Map(s.alerts);
    for (const judgement of s.judgements) {
      if (judgement.kind === 'raise') {
        noteExcursion(unit, j, await raise(unit, j, judgement.excursion), judgement.excursion, counts);
        continue;
      }
      const alert = current.get(judgement.alertId) as AlertRow;
      const change: AlertRevision =
        judgement.kind === 'extend'
          ? { values: judgement.readings.map((r) => r.value), latest: judgement.readings.reduce((a, b) => (b.t > a.t ? b : a)), startedBy: null }
          : { values: [judgement.excursion.peakValue], latest: null, startedBy: judgement.excursion.started };
      current.set(alert.id, await revise(unit, s.band, alert, change));
    }
  }
  return counts;
}

interface AlertRevision {
  /** Values outside the band that belong to the alert's excursion: the furthest may be its new peak. */
  values: readonly number[];
  /** The latest of the late readings outside, its last reading when newer than the recorded one. */
  latest: Reading | null;
  /** The late reading that started the excursion earlier than recorded. */
  startedBy: Reading | null;
}

/** A recorded alert after late readings of its excursion: peak (and severity), last reading, start; never its status. */
async function revise(unit: MonitoringUnit, band: ToleranceBand, alert: AlertRow, change: AlertRevision): Promise<AlertRow> {
  const peakValue = change.values.reduce((peak, v) => (deviationRatio(v, band) > deviationRatio(peak, band) ? v : peak), alert.peak_value);
  const latest = change.latest && change.latest.t > new Date(alert.last_reading_at).getTime() ? change.latest : null;
  const [revised]: AlertRow[] = await unit.scope
    .table('asset_alerts')
    .where('id', alert.id)
    .update({
      peak_value: peakValue,
      severity: severityOf(peakValue, band),
      ...(latest ? { last_value: latest.value, last_reading_at: new Date(latest.t) } : {}),
      ...(change.startedBy ? { raised_at: new Date(change.startedBy.t), value: change.startedBy.value } : {}),
      updated_at: new Date(),
    })
    .returning([...ALERT_COLUMNS]);
  return revised as AlertRow;
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
