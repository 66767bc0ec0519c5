/**
 * What a command prints: text for people, or with `--json` exactly one JSON document on stdout,
 * the result or the error object, so a script reads one place and branches on the exit code.
 * Text goes to stdout, errors and notes to stderr. Field names of the JSON are the stable contract.
 */
import type { Failure } from './errors';

/** A command's answer: the JSON document and its text for people. */
export interface Reply {
  json: unknown;
  text: string;
}

export interface Streams {
  out: (text: string) => void;
  err: (text: string) => void;
}

const PROCESS_STREAMS: Streams = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

export class Output {
  constructor(
    readonly json: boolean,
    private readonly streams: Streams = PROCESS_STREAMS,
  ) {}

  result(reply: Reply): void {
    if (this.json) this.streams.out(`${JSON.stringify(reply.json, jsonValue, 2)}\n`);
    else this.streams.out(reply.text.endsWith('\n') ? reply.text : `${reply.text}\n`);
  }

  failure(failure: Failure): void {
    const body = { error_code: failure.error_code, detail: failure.detail, ...failure.extra };
    if (this.json) this.streams.out(`${JSON.stringify(body, jsonValue, 2)}\n`);
    else this.streams.err(`error: ${failure.detail} (${failure.error_code})\n`);
  }
}

/** Instants as ISO 8601 text, as the API writes them. */
function jsonValue(this: unknown, _key: string, value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/** A value as a person reads it: instants in ISO 8601, nothing as "-". */
export function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.length ? value.map(show).join(', ') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean | bigint);
}

/** "label  value" lines, labels aligned. */
export function fields(pairs: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${label.padEnd(width)}  ${show(value)}`).join('\n');
}

/** Rows under a header, columns aligned; "(none)" for no rows. */
export function table<T>(rows: readonly T[], columns: ReadonlyArray<readonly [string, (row: T) => unknown]>): string {
  if (rows.length === 0) return '(none)';
  const cells = [columns.map(([header]) => header), ...rows.map((row) => columns.map(([, pick]) => show(pick(row))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}

/** A page's rows with where they sit in the whole ("3 of 41, from 20"). */
export function pageText(page: { total: number; skip: number; items: readonly unknown[] }, rows: string): string {
  const shown = page.items.length;
  return `${rows}\n${shown} of ${page.total}${page.skip > 0 ? `, from ${page.skip}` : ''}`;
}
