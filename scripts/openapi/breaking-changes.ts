/**
 * The guard of the OpenAPI document against breaking existing clients: oasdiff compares the
 * committed document with the baseline (the document of the last released version, committed, so
 * a fresh clone without history has it); a change it rates an error must come with a new major
 * `info.version` and a CHANGELOG.md section of that version naming every broken operation.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_FILES, ClientFiles, GENERATE_COMMAND } from './client-files';

export interface BreakingChange {
  /** oasdiff's check, e.g. `api-path-removed-without-deprecation`. */
  id: string;
  text: string;
  /** `GET /api/v1/assets`: how the CHANGELOG names it. */
  operation: string;
}

const OASDIFF_ERROR = 3;

/** oasdiff's errors (level ERR, after client/oasdiff-levels.txt) between two document files. */
export function breakingChanges(oasdiff: string, baseFile: string, revisionFile: string, severityLevelsFile: string): BreakingChange[] {
  const run = spawnSync(oasdiff, ['breaking', baseFile, revisionFile, '--format', 'json', '--severity-levels', severityLevelsFile], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`oasdiff breaking ${baseFile} ${revisionFile} failed (${run.status}): ${run.stderr || run.error?.message}`);
  const findings = JSON.parse(run.stdout || '[]') as Array<{ id: string; text: string; level: number; operation?: string; path?: string }>;
  return findings
    .filter((f) => f.level >= OASDIFF_ERROR)
    .map((f) => ({ id: f.id, text: f.text, operation: f.operation && f.path ? `${f.operation} ${f.path}` : (f.path ?? 'the document') }));
}

/** The text of CHANGELOG.md's `## <version>` section (a date or title may follow the version), or null. */
export function changelogSection(changelog: string, version: string): string | null {
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const heading = new RegExp(`^## \\[?v?${escaped}\\]?(?=[\\s]|$).*$`, 'm').exec(changelog);
  if (!heading) return null;
  const rest = changelog.slice(heading.index + heading[0].length);
  const next = /^## /m.exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

const major = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1] ?? NaN);

/**
 * Null when the breaking changes (if any) are announced as the convention says, else what is
 * missing and how to fix it.
 */
export function compatibilityProblem(input: { changes: BreakingChange[]; baseVersion: string; version: string; changelog: string }): string | null {
  const { changes, baseVersion, version, changelog } = input;
  if (changes.length === 0) return null;
  const missing: string[] = [];
  if (!(major(version) > major(baseVersion)))
    missing.push(`info.version is ${version}: a breaking change needs a major version above the baseline's ${baseVersion} (API_VERSION in api/routers.ts)`);
  const section = changelogSection(changelog, version);
  if (section === null) missing.push(`CHANGELOG.md has no "## ${version}" section`);
  else {
    const unnamed = [...new Set(changes.map((c) => c.operation))].filter((operation) => !section.includes(operation));
    if (unnamed.length) missing.push(`the "## ${version}" section of CHANGELOG.md does not name ${unnamed.map((o) => `\`${o}\``).join(', ')}`);
  }
  if (missing.length === 0) return null;
  const found = changes.map((c) => `  - ${c.operation}: ${c.text} [${c.id}]`).join('\n');
  return (
    `The OpenAPI document breaks existing clients (compared with the baseline ${baseVersion}):\n${found}\n` +
    `Not announced:\n${missing.map((m) => `  - ${m}`).join('\n')}\n` +
    `Either keep the change compatible, or raise API_VERSION to the next major version, run \`${GENERATE_COMMAND}\`, and name each operation above in that version's CHANGELOG.md section.`
  );
}

const versionOf = (file: string) => String((JSON.parse(fs.readFileSync(file, 'utf8')) as { info: { version: string } }).info.version);

/** The guard over the repository's files: null when the committed document is compatible or announced. */
export function checkCompatibility(root: string, oasdiff: string, files: ClientFiles = CLIENT_FILES): string | null {
  const at = (file: string) => path.resolve(root, file);
  const changes = breakingChanges(oasdiff, at(files.baseline), at(files.document), at(files.severityLevels));
  return compatibilityProblem({
    changes,
    baseVersion: versionOf(at(files.baseline)),
    version: versionOf(at(files.document)),
    changelog: fs.readFileSync(at(files.changelog), 'utf8'),
  });
}
