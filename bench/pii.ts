// PII redaction quality on the labelled fixture (issue 9): per-type precision, recall and F1.
// Called by `npm run bench`; also runnable on its own (see runPiiBench's caller at the bottom).
import { existsSync, readFileSync } from 'fs';
import path from 'path';
import { detectPii } from '../domain/privacy/pii';
import { type PiiEvalReport, evaluatePii, formatPiiReport, parseLabelledJsonl } from '../domain/privacy/pii-eval';

const FIXTURE = path.join('test', 'fixtures', 'pii', 'labelled.jsonl');

/** Finds the fixture from the source tree, a compiled copy (dist/bench) or the working directory. */
export function piiFixturePath(): string {
  const starts = [__dirname, process.cwd()];
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, FIXTURE);
      if (existsSync(candidate)) return candidate;
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new Error(`PII fixture ${FIXTURE} not found above ${starts.join(' or ')}`);
}

export function evaluatePiiFixture(fixturePath: string = piiFixturePath()): PiiEvalReport {
  const lines = parseLabelledJsonl(readFileSync(fixturePath, 'utf8'));
  return evaluatePii(lines, (text) => detectPii(text));
}

/** The result table as text; with `verbose`, every false positive and false negative after it. */
export async function runPiiBench(options: { verbose?: boolean } = {}): Promise<string> {
  const report = evaluatePiiFixture();
  const table = formatPiiReport(report);
  if (!options.verbose) return table;
  const misses = report.misses.map((m) => `  line ${m.line} ${m.kind} ${m.type}: ${JSON.stringify(m.value)}`);
  return [table, 'misses:', ...misses].join('\n');
}

if (require.main === module) {
  runPiiBench({ verbose: process.argv.includes('--verbose') })
    .then((out) => console.log(out))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
