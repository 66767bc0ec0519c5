import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** The committed files of the typed client and its guard, relative to the repository root. */
export interface ClientFiles {
  /** The document the API serves (written by `npm run openapi:generate`). */
  document: string;
  /** The document of the last released version: what existing clients were built against. */
  baseline: string;
  /** openapi-typescript's types of `document`. */
  schema: string;
  /** oasdiff severity overrides (which of its findings break a client of this API). */
  severityLevels: string;
  changelog: string;
  /** The internal service API's document, for operators (not part of the public contract or the client). */
  internalDocument: string;
}

export const CLIENT_FILES: ClientFiles = {
  document: 'client/openapi.json',
  baseline: 'client/openapi.baseline.json',
  schema: 'client/schema.d.ts',
  severityLevels: 'client/oasdiff-levels.txt',
  changelog: 'CHANGELOG.md',
  internalDocument: 'docs/internal-api.openapi.json',
};

export const GENERATE_COMMAND = 'npm run openapi:generate';

/** The committed form of a document: stable key order (the builder's), two-space indent, final newline. */
export const serialiseDocument = (document: object): string => JSON.stringify(document, null, 2) + '\n';

/** openapi-typescript's output for a document file (the CLI: the package is ESM-only, the tree CommonJS). */
export function schemaTypes(root: string, documentFile: string): string {
  const cli = path.join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  const run = spawnSync(process.execPath, [cli, documentFile], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`openapi-typescript failed on ${documentFile}: ${run.stderr}`);
  return run.stdout;
}
