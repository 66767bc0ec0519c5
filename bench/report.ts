/**
 * What the benchmarks share when they report: the verdict of a target line, and the history of a
 * workflow read back from the server (what one run cost it in events and workflow tasks).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export const verdict = (met: boolean): 'met' | 'not met' => (met ? 'met' : 'not met');

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export async function historyEvents(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** `n` of the items drawn at random without repeats (a partial Fisher-Yates shuffle of a copy). */
export function randomSample<T>(items: readonly T[], n: number): T[] {
  const copy = [...items];
  const take = Math.min(n, copy.length);
  for (let i = 0; i < take; i += 1) {
    const j = i + Math.floor(Math.random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, take);
}

/** Workflow tasks a worker started among these events. */
export const startedWorkflowTasks = (events: readonly HistoryEvent[]): number => events.filter((e) => e.workflowTaskStartedEventAttributes).length;

/**
 * The workflow tasks that timed out among these events, by kind, added to `into`: a task left on a
 * sticky queue past its schedule-to-start timeout ("schedule_to_start") is not one a worker took
 * and did not finish ("start_to_close"), and the due bench's goal reads differently for each.
 */
export function tallyTimedOutTasks(events: readonly HistoryEvent[], into: Map<string, number>): number {
  let count = 0;
  for (const event of events) {
    const timedOut = event.workflowTaskTimedOutEventAttributes;
    if (!timedOut) continue;
    const kind = timeoutKindName(timedOut.timeoutType ?? 0);
    into.set(kind, (into.get(kind) ?? 0) + 1);
    count += 1;
  }
  return count;
}

/** A tally of `tallyTimedOutTasks` as one line, e.g. `schedule_to_start 97, start_to_close 1` ("none" when empty). */
export const timedOutKindsLine = (tally: ReadonlyMap<string, number>): string => (tally.size ? [...tally].map(([kind, n]) => `${kind} ${n}`).join(', ') : 'none');

const timeoutKindName = (timeout: number): string => (temporal.api.enums.v1.TimeoutType[timeout] ?? '?').replace(/^TIMEOUT_TYPE_/, '').toLowerCase();

/** A timer armed this long before the instant was waiting for it, as a due plan's is (the due bench's `*_armed_10s_ahead`). */
export const ARMED_AHEAD_MS = 10_000;

/**
 * Whether the timer that fired first in this history was started at least `aheadMs` before
 * `dueAtMs`: a workflow whose timer was armed late (its start still queued when the instant
 * came) is not part of a same-instant burst.
 */
export function timerArmedAhead(events: readonly HistoryEvent[], dueAtMs: number, aheadMs: number): boolean {
  const timerId = events.find((e) => e.timerFiredEventAttributes)?.timerFiredEventAttributes?.timerId;
  const started = events.find((e) => e.timerStartedEventAttributes && e.timerStartedEventAttributes.timerId === timerId);
  return timerId !== undefined && started !== undefined && timeOf(started) <= dueAtMs - aheadMs;
}

/**
 * A history as one line: each event's type (timeouts with their kind, failures with the head of
 * their message) and its seconds since the first event, e.g. `WorkflowTaskTimedOut(StartToClose)
 * +10.2`. For a benchmark's slowest run: what it waited on.
 */
export function timelineOf(events: readonly HistoryEvent[]): string {
  const t0 = timeOf(events[0]);
  return events
    .map((event) => {
      const type = (temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? '?').replace(/^EVENT_TYPE_/, '').toLowerCase();
      const timeout = event.workflowTaskTimedOutEventAttributes?.timeoutType;
      const failure = event.workflowTaskFailedEventAttributes?.failure?.message ?? event.activityTaskFailedEventAttributes?.failure?.message;
      const detail = timeout !== undefined && timeout !== null ? `(${timeoutKindName(timeout)})` : failure ? `(${failure.slice(0, 60)})` : '';
      return `${type}${detail} +${((timeOf(event) - t0) / 1000).toFixed(1)}`;
    })
    .join(', ');
}

/** When a history event happened, in epoch milliseconds (0 when it has no time). */
export function timeOf(event: HistoryEvent | undefined): number {
  const time = event?.eventTime;
  return time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;
}

const WARMUP = 20;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round2 = (n: number) => Number(n.toFixed(2));

/**
 * Times calls in turn, one at a time, so all see the same machine (2 shared cores): p50/p99 of each
 * in ms. `warmup` untimed turns first: enough for the JIT to have compiled every call's path (a
 * path through more code takes more calls to warm, so too few turns count its warm-up against it).
 */
export async function timedTurns(n: number, calls: Array<(i: number) => Promise<void>>, warmup = WARMUP): Promise<Array<{ p50: number; p99: number }>> {
  return (await turnTimes(n, calls, warmup)).map(quantiles);
}

/** As `timedTurns`, each call's times in ms, in the order taken (for pooling several blocks of turns). */
export async function turnTimes(n: number, calls: Array<(i: number) => Promise<void>>, warmup = WARMUP): Promise<number[][]> {
  for (let i = 0; i < warmup; i += 1) for (const call of calls) await call(-1 - i);
  const ms: number[][] = calls.map(() => []);
  for (let i = 0; i < n; i += 1) {
    for (const [k, call] of calls.entries()) {
      const t0 = process.hrtime.bigint();
      await call(i);
      ms[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return ms;
}

/** p50 and p99 of times in ms. */
export function quantiles(times: readonly number[]): { p50: number; p99: number } {
  const sorted = [...times].sort((x, y) => x - y);
  return { p50: round2(percentile(sorted, 50)), p99: round2(percentile(sorted, 99)) };
}
