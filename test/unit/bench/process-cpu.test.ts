import { CLOCK_TICK_MS, processCpuMs, threadCpuMs, threadCpuSplit } from '../../../bench/process-cpu';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { tallyTimedOutTasks, timedOutKindsLine, timerArmedAhead, type HistoryEvent } from '../../../bench/report';
import { temporal } from '@temporalio/proto';

/** Busy-waits on this thread until the process has spent `ms` more of CPU (however loaded the machine). */
function spin(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
    for (let i = 0; i < 10_000; i += 1) Math.sqrt(i);
  }
}

describe('CPU by thread, from /proc', () => {
  it('charges work on the main thread to it, and the threads sum to no more than the process', () => {
    const process0 = processCpuMs(process.pid);
    const before = threadCpuMs(process.pid);
    spin(300);
    const after = threadCpuMs(process.pid);
    const processMs = processCpuMs(process.pid) - process0;
    // Jest's main thread of a worker process carries the process's name (node or MainThread).
    const [busiest, ms] = [...after].map(([name, total]) => [name, total - (before.get(name) ?? 0)] as const).sort((a, b) => b[1] - a[1])[0];
    expect(ms).toBeGreaterThanOrEqual(200);
    // Within the rounding of two readings: a thread's ticks and its process's are rounded apart (a run had 310 against 300).
    expect(processMs + 2 * CLOCK_TICK_MS).toBeGreaterThanOrEqual(ms);
    expect(threadCpuSplit(before, after, 10).split(', ')[0].startsWith(`${busiest} `)).toBe(true);
  });

  it('gives per-unit figures largest first and drops threads that spent nothing', () => {
    const before = new Map([
      ['MainThread', 100],
      ['V8Worker', 50],
      ['idle', 7],
    ]);
    const after = new Map([
      ['MainThread', 140],
      ['V8Worker', 130],
      ['idle', 7],
      ['new', 2],
    ]);
    expect(threadCpuSplit(before, after, 10)).toBe('V8Worker 8, MainThread 4, new 0.2');
  });

  it('is empty without a process', () => {
    expect(threadCpuMs(undefined).size).toBe(0);
    expect(processCpuMs(undefined)).toBeNaN();
  });
});

describe('a timer armed ahead of the instant', () => {
  const at = msNumberToTs;
  const history = (startedAt: number): HistoryEvent[] => [
    { eventType: 1, eventTime: at(0) },
    { timerStartedEventAttributes: { timerId: '1' }, eventTime: at(startedAt) },
    { timerFiredEventAttributes: { timerId: '1' }, eventTime: at(100_000) },
  ];

  it('counts only a fired timer started at least that long before the instant', () => {
    expect(timerArmedAhead(history(80_000), 100_000, 10_000)).toBe(true);
    expect(timerArmedAhead(history(95_000), 100_000, 10_000)).toBe(false);
    expect(timerArmedAhead([{ timerStartedEventAttributes: { timerId: '1' }, eventTime: at(0) }], 100_000, 10_000)).toBe(false);
  });
});

describe('timed-out workflow tasks by kind', () => {
  const { TimeoutType } = temporal.api.enums.v1;
  const timedOut = (timeoutType: number): HistoryEvent => ({ workflowTaskTimedOutEventAttributes: { timeoutType } });

  it('counts each kind across histories and leaves other events out', () => {
    const tally = new Map<string, number>();
    expect(tallyTimedOutTasks([timedOut(TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START), { timerFiredEventAttributes: { timerId: '1' } }], tally)).toBe(1);
    expect(tallyTimedOutTasks([timedOut(TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE), timedOut(TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)], tally)).toBe(2);
    expect(timedOutKindsLine(tally)).toBe('schedule_to_start 2, start_to_close 1');
    // A timed-out task whose kind is not given still counts.
    expect(tallyTimedOutTasks([{ workflowTaskTimedOutEventAttributes: {} }], tally)).toBe(1);
    expect(timedOutKindsLine(tally)).toBe('schedule_to_start 2, start_to_close 1, unspecified 1');
  });

  it('says none when nothing timed out', () => {
    const tally = new Map<string, number>();
    expect(tallyTimedOutTasks([{ workflowTaskCompletedEventAttributes: {} }], tally)).toBe(0);
    expect(timedOutKindsLine(tally)).toBe('none');
  });
});
