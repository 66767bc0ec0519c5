/**
 * Records a workflow's history for the replay test (test/workflows/replay.test.ts), only when
 * RECORD_HISTORIES=1 (`npm run histories:record`); otherwise it does nothing, so a normal test
 * run never rewrites the committed files.
 *
 * A file is the SDK's HistoryAndWorkflowId, `{ workflowId, history }` (a history does not carry its
 * workflow id), the history in protobufjs' JSON mapping of @temporalio/proto (int64 as strings,
 * enums by name, bytes as base64), read back with readHistoryFile. Not the SDK's historyToJSON /
 * historyFromJSON: in this dependency tree @temporalio/common and @temporalio/proto each get their
 * own protobufjs 8 copy (the top-level one is OpenTelemetry's 7), and both functions throw "type
 * must be a Type". Worker and client identities (pid@host) and failure stack traces (local paths)
 * are blanked: replay needs neither, and the files then hold nothing of the recording machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { historyTextOf } from './history-text';

export const HISTORIES_DIR = path.resolve(__dirname, '..', 'workflows', 'histories');
export const recordingHistories = process.env.RECORD_HISTORIES === '1';

/** An e-mail address anywhere in a history's decoded text means personal data got in. */
// (A letter top-level domain: the SDK's own `@temporalio/worker@1.24.0` build id is no address.)
export const EMAIL_PATTERN = /(?<![\w.+-])[\w.+-]+@[\w-]+(\.[\w-]+)*\.[a-z]{2,}\b/i;

const HistoryProto = temporal.api.history.v1.History;

interface HistorySource {
  workflowId: string;
  fetchHistory(): Promise<temporal.api.history.v1.IHistory>;
}

export interface HistoryFile {
  /** The file's name, e.g. `report-generated.json`. */
  file: string;
  workflowId: string;
  /** As stored (JSON): what the scans read. */
  json: { events: Array<Record<string, any>> };
  /** As the replay worker takes it. */
  history: temporal.api.history.v1.History;
}

/** Histories recorded by earlier workflow code, kept by hand (never rewritten or pruned by the recorder). */
export const KEPT_HISTORIES_DIR = path.join(HISTORIES_DIR, 'kept');

const jsonFiles = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .sort()
    : [];

/** Every history: the recorded ones (`report-generated.json`), then the kept ones (`kept/...json`). */
export function readHistoryFiles(): HistoryFile[] {
  const files = [...jsonFiles(HISTORIES_DIR), ...jsonFiles(KEPT_HISTORIES_DIR).map((name) => `kept/${name}`)];
  return files.map((file) => {
    const { workflowId, history } = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8'));
    return { file, workflowId, json: history, history: HistoryProto.fromObject(history) };
  });
}

function blankMachineDetails(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(blankMachineDetails);
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if ((key === 'identity' || key === 'stackTrace') && typeof record[key] === 'string') record[key] = '';
    else blankMachineDetails(record[key]);
  }
}

/** Writes test/workflows/histories/<name>.json from `handle`'s run (its latest run without a run id). */
export async function recordHistory(name: string, handle: HistorySource): Promise<void> {
  if (!recordingHistories) return;
  const fetched = HistoryProto.fromObject(await handle.fetchHistory());
  const history = HistoryProto.toObject(fetched, { longs: String, enums: String, bytes: String });
  blankMachineDetails(history);
  const email = historyTextOf(history.events).match(EMAIL_PATTERN);
  if (email) throw new Error(`the history of ${handle.workflowId} holds an e-mail address (${email[0]}): not recorded`);
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), JSON.stringify({ workflowId: handle.workflowId, history }, null, 1) + '\n');
}
