/**
 * Evaluates the prognostics model on C-MAPSS-format test data through the endpoint's code path.
 *
 *   npm run prognostics:eval -- [--test data/cmapss/test_FD001.txt] [--rul data/cmapss/RUL_FD001.txt] [--verbose]
 *   node -r ./scripts/prognostics/register-ts.cjs scripts/prognostics-eval.ts [same options]   (no build)
 *
 * Prints a summary (per engine with --verbose); the last line is exactly `rmse=<x> score=<y>`.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseCmapss, parseRulFile } from '../domain/prognostics/cmapss';
import { casesFromCmapss, evaluate } from '../domain/prognostics/evaluate';
import { describeInsufficient, FD001_MODEL } from '../domain/prognostics/index';
import { repoRoot, userPath } from './prognostics/paths';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (i >= 0 && (value === undefined || value.startsWith('--'))) throw new Error(`--${name} needs a file`);
  return value ?? fallback;
}

function main(): void {
  const testFile = userPath(arg('test', path.join(repoRoot(), 'data/cmapss/test_FD001.txt')));
  const rulFile = userPath(arg('rul', path.join(repoRoot(), 'data/cmapss/RUL_FD001.txt')));
  const cases = casesFromCmapss(parseCmapss(fs.readFileSync(testFile, 'utf8')), parseRulFile(fs.readFileSync(rulFile, 'utf8')));
  const result = evaluate(cases);
  const out = (line: string) => process.stdout.write(`${line}\n`);

  out(`model ${FD001_MODEL.model_version}`);
  out(`test ${testFile}`);
  out(`rul  ${rulFile}`);
  if (process.argv.includes('--verbose')) {
    out('unit predicted true error in_distribution p_fail_30');
    for (const e of result.engines) {
      out(`${e.unit} ${e.predicted.toFixed(1)} ${e.true_rul} ${e.error.toFixed(1)} ${e.in_distribution.toFixed(2)} ${e.failure_probability.toFixed(3)}`);
    }
  }
  for (const s of result.skipped) out(`unit ${s.unit} skipped: ${describeInsufficient(s.insufficient)}`);
  const abs = result.engines.map((e) => Math.abs(e.error));
  const within = (c: number) => abs.filter((a) => a <= c).length;
  out(`engines evaluated ${result.engines.length} of ${cases.length}, skipped ${result.skipped.length}`);
  out(`mean error (predicted - true) ${result.mean_error.toFixed(2)} cycles`);
  out(`|error| <= 10: ${within(10)}, <= 20: ${within(20)}, max ${Math.max(...abs).toFixed(1)}`);
  const b = result.brier;
  const base = b.failures / Math.max(result.engines.length, 1);
  out(
    `failure within ${b.horizon_cycles} cycles: ${b.failures} engines, expected ${b.expected.toFixed(1)}, Brier ${b.score.toFixed(4)} (constant-rate baseline ${(base * (1 - base)).toFixed(4)})`,
  );
  out(`rmse=${result.rmse.toFixed(3)} score=${result.score.toFixed(2)}`);
  if (result.engines.length === 0) process.exitCode = 1;
}

main();
