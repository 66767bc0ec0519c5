/**
 * CSAT and NPS, defined once (SPEC contract between helpers): the API's aggregates and the CSAT
 * report both call these; nobody recomputes them differently.
 *   CSAT % = share of csat_5 responses with score >= 4.
 *   NPS    = % promoters (9-10) - % detractors (0-6) of nps_10 responses.
 * Both round to one decimal and are null when there is no response to rate.
 * Pure (no I/O, no clock): the day of a response is computed by the caller's query, in UTC.
 */
import { CsatScale } from './scale';

/** How many responses gave `score` on a survey of `scale`: what a grouped SQL count returns. */
export interface ScoreTally {
  scale: CsatScale;
  score: number;
  count: number;
}

export interface ScoreSummary {
  response_count: number;
  csat_percent: number | null;
  nps: number | null;
}

const isSatisfied = (score: number) => score >= 4;
const isPromoter = (score: number) => score >= 9;
const isDetractor = (score: number) => score <= 6;
const round1 = (value: number) => Math.round(value * 10) / 10 || 0; // `|| 0`: never -0

const tallies = (scale: CsatScale, scores: number[]): ScoreTally[] => scores.map((score) => ({ scale, score, count: 1 }));

export function csatPercent(scores: number[]): number | null {
  return summariseTallies(tallies('csat_5', scores)).csat_percent;
}

export function netPromoterScore(scores: number[]): number | null {
  return summariseTallies(tallies('nps_10', scores)).nps;
}

/** CSAT % over the csat_5 tallies, NPS over the nps_10 ones, and the count of all. */
export function summariseTallies(rows: readonly ScoreTally[]): ScoreSummary {
  let csatTotal = 0;
  let satisfied = 0;
  let npsTotal = 0;
  let netPromoters = 0;
  for (const { scale, score, count } of rows) {
    if (scale === 'csat_5') {
      csatTotal += count;
      if (isSatisfied(score)) satisfied += count;
    } else {
      npsTotal += count;
      if (isPromoter(score)) netPromoters += count;
      else if (isDetractor(score)) netPromoters -= count;
    }
  }
  return {
    response_count: csatTotal + npsTotal,
    csat_percent: csatTotal === 0 ? null : round1((satisfied / csatTotal) * 100),
    nps: npsTotal === 0 ? null : round1((netPromoters / npsTotal) * 100),
  };
}

/** One group of a grouped count: its agent and its UTC day (`YYYY-MM-DD`). */
export interface GroupedTally extends ScoreTally {
  agent_id: string | null;
  day: string;
}

export interface CsatAggregates extends ScoreSummary {
  per_agent: Array<ScoreSummary & { agent_id: string | null }>;
  per_day: Array<ScoreSummary & { date: string }>;
}

/** The whole period, each agent (sorted by id, unassigned last) and each day (ascending) with responses. */
export function aggregateTallies(rows: readonly GroupedTally[]): CsatAggregates {
  const byAgent = groupBy(rows, (r) => r.agent_id);
  const byDay = groupBy(rows, (r) => r.day);
  const agentOrder = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return {
    ...summariseTallies(rows),
    per_agent: [...byAgent.keys()].sort(agentOrder).map((agent_id) => ({ agent_id, ...summariseTallies(byAgent.get(agent_id)!) })),
    per_day: [...byDay.keys()].sort().map((date) => ({ date, ...summariseTallies(byDay.get(date)!) })),
  };
}

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
