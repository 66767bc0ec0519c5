/**
 * Replays every recorded history under test/workflows/histories with the current workflow code
 * (one replay worker, Worker.runReplayHistories), so a change to a workflow that would break its
 * running executions fails here. Reads only the committed files: no server, no other test needed.
 * The histories are recorded again by `npm run histories:record` (see histories/README.md).
 */
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import * as workflows from '../../workflows';
import { historyTextOf } from '../support/history-text';
import { EMAIL_PATTERN, HistoryFile, readHistoryFiles } from '../support/record-history';

jest.setTimeout(180_000);

const workflowsPath = require.resolve('../../workflows');
const recorded = readHistoryFiles();
const typeOf = (h: HistoryFile): string | null | undefined => h.history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;

it('has a history for every workflow type the worker registers', () => {
  const registered = Object.keys(workflows).sort();
  expect(registered.length).toBeGreaterThan(0);
  const covered = new Set(recorded.map(typeOf));
  // A new workflow type needs a recorded history (npm run histories:record) before it can ship.
  expect(registered.filter((type) => !covered.has(type))).toEqual([]);
  // And every history belongs to a type the worker still runs.
  expect(recorded.filter((h) => !registered.includes(typeOf(h) ?? '')).map((h) => h.file)).toEqual([]);
});

it('holds ids only: no e-mail address in any history', () => {
  for (const h of recorded) expect([h.file, historyTextOf(h.json.events).match(EMAIL_PATTERN)?.[0] ?? null]).toEqual([h.file, null]);
});

it('replays every recorded history with the current workflow code', async () => {
  const failures: string[] = [];
  let replayed = 0;
  const histories = recorded.map((h) => ({ workflowId: h.workflowId, history: h.history }));
  // The worker replays one history at a time and answers in the order given: result i is file i.
  for await (const result of Worker.runReplayHistories({ workflowsPath, replayName: 'recorded-histories' }, histories)) {
    if (result.error) failures.push(`${recorded[replayed].file}: ${result.error.message}`);
    replayed += 1;
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(recorded.length);
});

it('refuses an altered history with a nondeterminism error (the check has teeth)', async () => {
  const source = recorded.find((h) => h.file === 'maintenance-plan-counter-pause.json');
  expect(source).toBeDefined();
  const altered = temporal.api.history.v1.History.fromObject(source!.json);
  const scheduled = altered.events.find((e) => e.activityTaskScheduledEventAttributes);
  scheduled!.activityTaskScheduledEventAttributes!.activityType!.name = 'someOtherActivity';
  await expect(Worker.runReplayHistory({ workflowsPath, replayName: 'altered-history' }, altered, source!.workflowId)).rejects.toThrow(DeterminismViolationError);
});
