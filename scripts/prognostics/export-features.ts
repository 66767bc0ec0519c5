/**
 * Writes the training features of C-MAPSS run-to-failure engines to CSV, computed by the same
 * domain/prognostics/features.ts the endpoint uses, so train.py learns on exactly those numbers.
 *
 *   node -r ./scripts/prognostics/register-ts.cjs scripts/prognostics/export-features.ts \
 *     [--train data/cmapss/train_FD001.txt] [--out .data/prognostics/fd001-train-features.csv] \
 *     [--window 30] [--stats last,mean,std,slope] [--history-stats mean,slope] [--history-cycles 400] [--age true]
 *
 * One row per engine and cycle with at least `window` cycles of history: engine, cycle, rul (true,
 * uncapped: last cycle of the engine minus this cycle), then the features. A sidecar
 * `<out>.spec.json` holds the FeatureSpec for train.py to embed in the model.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseCmapss } from '../../domain/prognostics/cmapss';
import { extractFeatures, featureNames, FD001_SENSORS, isWindowStat, type FeatureSpec } from '../../domain/prognostics/features';
import { FD001_FEATURE_SPEC } from '../../domain/prognostics/spec';
import { repoRoot, userPath } from './paths';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function specFromArgs(): FeatureSpec {
  const stats = arg('stats')?.split(',') ?? [...FD001_FEATURE_SPEC.stats];
  const historyArg = arg('history-stats');
  const historyStats = historyArg === undefined ? [...(FD001_FEATURE_SPEC.history_stats ?? [])] : historyArg.split(',').filter((s) => s !== '');
  const bad = [...stats, ...historyStats].filter((s) => !isWindowStat(s));
  if (bad.length > 0) throw new Error(`unknown stats: ${bad.join(', ')}`);
  return {
    window: Number(arg('window') ?? FD001_FEATURE_SPEC.window),
    sensors: arg('sensors')?.split(',') ?? [...FD001_SENSORS],
    stats: stats.filter(isWindowStat),
    history_stats: historyStats.filter(isWindowStat),
    history_cycles: Number(arg('history-cycles') ?? FD001_FEATURE_SPEC.history_cycles ?? 400),
    include_age: (arg('age') ?? String(FD001_FEATURE_SPEC.include_age)) === 'true',
  };
}

function main(): void {
  const root = repoRoot();
  const trainFile = userPath(arg('train') ?? path.join(root, 'data/cmapss/train_FD001.txt'));
  const outFile = userPath(arg('out') ?? path.join(root, '.data/prognostics/fd001-train-features.csv'));
  const spec = specFromArgs();
  const engines = parseCmapss(fs.readFileSync(trainFile, 'utf8'));
  const lines = [['engine', 'cycle', 'rul', ...featureNames(spec)].join(',')];
  for (const engine of engines) {
    const lastCycle = Math.max(...engine.records.map((r) => r.cycle));
    for (let end = spec.window; end <= engine.records.length; end++) {
      const result = extractFeatures(engine.records.slice(0, end), spec);
      if (!result.ok) throw new Error(`engine ${engine.unit}: ${JSON.stringify(result.insufficient)}`);
      // String(x) is the shortest text that parses back to the same double, so Python reads
      // bit-identical features.
      lines.push([engine.unit, result.last_cycle, lastCycle - result.last_cycle, ...result.values].map(String).join(','));
    }
  }
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, lines.join('\n') + '\n');
  fs.writeFileSync(`${outFile}.spec.json`, JSON.stringify({ ...spec, source: path.relative(root, trainFile) }, null, 2) + '\n');
  process.stdout.write(`${lines.length - 1} rows, ${featureNames(spec).length} features -> ${path.relative(root, outFile)}\n`);
}

main();
