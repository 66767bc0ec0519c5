// PII redaction quality on labelled fixtures, the redactor and Presidio's pattern recognizers side
// by side: the project's hand-written unit-test fixture (tidy forms), the generated corpus of
// messages as people write them (bench/pii-corpus), hand-written messages in the forms people
// write (test/fixtures/pii/hand-written.jsonl and hand-written-2/-3/-4/-6.jsonl, development sets:
// each was scored once as unseen text, then its misses were fixed), and the held-out sets no
// detector was tuned on (held-out-5.jsonl and held-out-7.jsonl, each and together: the figures for
// unseen text; a set that is absent is skipped with a line saying so). Called by
// `npm run bench -- pii`; also runnable on its own: `node scripts/run-dist.mjs bench/pii [--verbose] [--seed N] [--messages N]`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type PiiFinding, PII_TYPES, detectPii } from '../domain/privacy/pii';
import { type LabelledLine, type PiiEvalReport, evaluatePii, parseLabelledJsonl } from '../domain/privacy/pii-eval';
import { type CorpusOptions, DEFAULT_CORPUS, generatePiiCorpus } from './pii-corpus/corpus';

const TIDY_FIXTURE = path.join('test', 'fixtures', 'pii', 'labelled.jsonl');
/** Hand-written apart from the detectors, then used to find the forms they missed: a development set, not unseen text. */
const HAND_WRITTEN_FIXTURE = path.join('test', 'fixtures', 'pii', 'hand-written.jsonl');
/** A second hand-written set, scored as held-out text once, then used like the first. */
const HAND_WRITTEN_2_FIXTURE = path.join('test', 'fixtures', 'pii', 'hand-written-2.jsonl');
/** A third hand-written set, scored as held-out text once, then used like the others. */
const HAND_WRITTEN_3_FIXTURE = path.join('test', 'fixtures', 'pii', 'hand-written-3.jsonl');
/** A fourth hand-written set, scored as held-out text once (P 0.966 R 0.955), then used like the others. */
const HAND_WRITTEN_4_FIXTURE = path.join('test', 'fixtures', 'pii', 'hand-written-4.jsonl');
/** A sixth hand-written set, scored as held-out text once (P 0.978 R 0.967), then used like the others. */
const HAND_WRITTEN_6_FIXTURE = path.join('test', 'fixtures', 'pii', 'hand-written-6.jsonl');
/** Hand-written apart from the detectors and from each other, never tuned on: the figures for text the redactor has not seen. */
const HELD_OUT_FIXTURES = [
  { name: 'held-out 5, hand-written (never tuned on)', relative: path.join('test', 'fixtures', 'pii', 'held-out-5.jsonl') },
  { name: 'held-out 7, hand-written (never tuned on)', relative: path.join('test', 'fixtures', 'pii', 'held-out-7.jsonl') },
] as const;
const PRESIDIO_SCRIPT = path.join('bench', 'pii-presidio.py');
/** Presidio's install (once, about a minute) and its run on the fixtures (about 15 s). */
const PRESIDIO_TIMEOUT_MS = 10 * 60_000;

/** The goals the bench prints beside the figures (the ones the PII issue sets for unseen text). */
export const PII_GOALS = { recallPerType: 0.95, precision: 0.97, lookalikesLostAtMost: 0.02 } as const;

/** `relative` found from the source tree, a compiled copy (dist/bench) or the working directory. */
function findUp(relative: string): string {
  const starts = [__dirname, process.cwd()];
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, relative);
      if (existsSync(candidate)) return candidate;
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new Error(`${relative} not found above ${starts.join(' or ')}`);
}

interface Fixture {
  readonly name: string;
  readonly lines: readonly LabelledLine[];
  /** Whether `--verbose` lists the redactor's misses on it by class (the fixtures it is not tested on). */
  readonly listMisses: boolean;
}

/** `relative` found as findUp finds it, or null when no directory above holds it. */
function findUpIfPresent(relative: string): string | null {
  try {
    return findUp(relative);
  } catch {
    return null;
  }
}

function fileFixture(name: string, relative: string, listMisses: boolean): Fixture {
  return { name: `${name} (${relative})`, lines: parseLabelledJsonl(readFileSync(findUp(relative), 'utf8')), listMisses };
}

/** Presidio's findings per text, or why it could not run. */
type PresidioRun = { readonly ok: true; readonly findings: ReadonlyMap<string, readonly PiiFinding[]> } | { readonly ok: false; readonly reason: string };

async function runPresidio(texts: readonly string[], log: (text: string) => void): Promise<PresidioRun> {
  const root = path.resolve(findUp(path.join('scripts', 'lib', 'tools.cjs')), '..', '..', '..');
  let python: string;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the tools installer is CommonJS run by the scripts too
    const tools = require(path.join(root, 'scripts', 'lib', 'tools.cjs')) as { ensurePresidio: (o: { root: string; log: (t: string) => void }) => Promise<string> };
    python = await tools.ensurePresidio({ root, log });
  } catch (error) {
    return { ok: false, reason: `could not install presidio-analyzer: ${(error as Error).message.split('\n')[0]}` };
  }
  const unique = [...new Set(texts)];
  return new Promise((resolve) => {
    const child = spawn(python, [path.join(root, PRESIDIO_SCRIPT)], { stdio: ['pipe', 'pipe', 'pipe'], timeout: PRESIDIO_TIMEOUT_MS });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', (error) => resolve({ ok: false, reason: `could not run ${python}: ${error.message}` }));
    child.on('close', (code, signal) => {
      const results = out.split('\n').filter((l) => l.trim() !== '');
      if (code !== 0 || results.length !== unique.length) {
        resolve({ ok: false, reason: `Presidio exited ${code ?? signal} after ${results.length} of ${unique.length} messages: ${err.trim().split('\n').slice(-1)[0] ?? ''}` });
        return;
      }
      resolve({ ok: true, findings: new Map(unique.map((text, i) => [text, JSON.parse(results[i]) as PiiFinding[]])) });
    });
    child.stdin.end(unique.map((text) => JSON.stringify({ text })).join('\n') + '\n');
  });
}

const f3 = (x: number) => x.toFixed(3);
const mark = (ok: boolean) => (ok ? ' ' : '*');

/** One fixture's table: per type precision and recall of both, the goals beside. */
function sideBySide(fixture: Fixture, ours: PiiEvalReport, presidio: PiiEvalReport | null): string[] {
  const header = ['type', 'gold', 'ours P', 'ours R', 'Presidio P', 'Presidio R', 'goal'];
  const cell = (report: PiiEvalReport | null, pick: (r: PiiEvalReport) => number, goal: number | null) => {
    if (!report) return '-';
    const value = pick(report);
    return `${f3(value)}${goal === null ? ' ' : mark(value >= goal)}`;
  };
  const rows: string[][] = [header];
  for (const type of PII_TYPES) {
    const recall = (r: PiiEvalReport) => r.perType[type].recall;
    const precision = (r: PiiEvalReport) => r.perType[type].precision;
    const gold = ours.perType[type].tp + ours.perType[type].fn;
    rows.push([
      type,
      String(gold),
      cell(ours, precision, null),
      cell(ours, recall, PII_GOALS.recallPerType),
      cell(presidio, precision, null),
      cell(presidio, recall, PII_GOALS.recallPerType),
      `R >= ${PII_GOALS.recallPerType}`,
    ]);
  }
  const overallGold = ours.overall.tp + ours.overall.fn;
  rows.push([
    'overall',
    String(overallGold),
    cell(ours, (r) => r.overall.precision, PII_GOALS.precision),
    cell(ours, (r) => r.overall.recall, null),
    cell(presidio, (r) => r.overall.precision, PII_GOALS.precision),
    cell(presidio, (r) => r.overall.recall, null),
    `P >= ${PII_GOALS.precision}`,
  ]);
  const lost = (r: PiiEvalReport | null) => {
    if (!r) return '-';
    if (!r.lookalikes) return 'n/a';
    const share = r.lookalikes.total === 0 ? 0 : r.lookalikes.lost / r.lookalikes.total;
    return `${r.lookalikes.lost}/${r.lookalikes.total} ${(share * 100).toFixed(1)}%${mark(share <= PII_GOALS.lookalikesLostAtMost)}`;
  };
  rows.push(['look-alikes lost', ours.lookalikes ? String(ours.lookalikes.total) : '-', lost(ours), '', lost(presidio), '', `<= ${PII_GOALS.lookalikesLostAtMost * 100} %`]);
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const render = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const partial = `partial overlaps: ours ${ours.partialOverlaps}${presidio ? `, Presidio ${presidio.partialOverlaps}` : ''}`;
  return [`${fixture.name}: ${fixture.lines.length} messages, strict span match (${partial}; * misses its goal)`, ...rows.map(render)];
}

/** What the redactor misses, by type and written form, and which look-alikes it takes: where phase work starts. */
function missesByClass(report: PiiEvalReport, lines: readonly LabelledLine[]): string[] {
  const out: string[] = [];
  const goldByForm = new Map<string, number>();
  for (const line of lines) for (const e of line.entities) goldByForm.set(`${e.type} ${e.form ?? '-'}`, (goldByForm.get(`${e.type} ${e.form ?? '-'}`) ?? 0) + 1);
  const missed = new Map<string, string[]>();
  for (const m of report.misses) {
    if (m.kind !== 'false_negative') continue;
    const key = `${m.type} ${m.form ?? '-'}`;
    missed.set(key, [...(missed.get(key) ?? []), m.value]);
  }
  out.push('missed, by type and form (missed/labelled, examples):');
  for (const [key, values] of [...missed].sort((a, b) => a[0].localeCompare(b[0]))) {
    out.push(
      `  ${key.padEnd(44)} ${String(values.length).padStart(3)}/${String(goldByForm.get(key) ?? values.length).padEnd(3)}  ${values
        .slice(0, 3)
        .map((v) => JSON.stringify(v))
        .join('  ')}`,
    );
  }
  const wrong = report.misses.filter((m) => m.kind === 'false_positive');
  out.push(`false positives (${wrong.length}), by type:`);
  for (const type of PII_TYPES) {
    const values = wrong.filter((m) => m.type === type).map((m) => m.value);
    if (values.length)
      out.push(
        `  ${type.padEnd(12)} ${String(values.length).padStart(3)}  ${values
          .slice(0, 4)
          .map((v) => JSON.stringify(v))
          .join('  ')}`,
      );
  }
  if (report.lookalikes?.losses.length) {
    out.push('look-alikes lost, by kind:');
    const byKind = new Map<string, string[]>();
    for (const l of report.lookalikes.losses) byKind.set(l.kind, [...(byKind.get(l.kind) ?? []), `${JSON.stringify(l.value)} as ${l.type}`]);
    for (const [kind, values] of byKind) out.push(`  ${kind.padEnd(12)} ${String(values.length).padStart(3)}  ${values.slice(0, 3).join('  ')}`);
  }
  return out;
}

export interface PiiBenchOptions {
  readonly verbose?: boolean;
  readonly corpus?: CorpusOptions;
  /** Skip Presidio (no Python, or only our figures wanted). */
  readonly withoutPresidio?: boolean;
  readonly log?: (text: string) => void;
}

/** Every fixture's table as text; with `verbose`, the redactor's misses by class on the corpus and the hand-written sets after them. */
export async function runPiiBench(options: PiiBenchOptions = {}): Promise<string> {
  const corpus = options.corpus ?? DEFAULT_CORPUS;
  const log = options.log ?? ((text: string) => process.stderr.write(`[pii] ${text}\n`));
  const fixtures: Fixture[] = [
    fileFixture('tidy fixture', TIDY_FIXTURE, false),
    { name: `message corpus (bench/pii-corpus, seed ${corpus.seed})`, lines: generatePiiCorpus(corpus), listMisses: true },
    fileFixture('hand-written (development)', HAND_WRITTEN_FIXTURE, true),
    fileFixture('hand-written 2 (development)', HAND_WRITTEN_2_FIXTURE, true),
    fileFixture('hand-written 3 (development)', HAND_WRITTEN_3_FIXTURE, true),
    fileFixture('hand-written 4 (development)', HAND_WRITTEN_4_FIXTURE, true),
    fileFixture('hand-written 6 (development)', HAND_WRITTEN_6_FIXTURE, true),
  ];
  const heldOut = HELD_OUT_FIXTURES.filter((set) => findUpIfPresent(set.relative) !== null).map((set) => fileFixture(set.name, set.relative, true));
  fixtures.push(...heldOut);
  // The sets together: the unseen-text figure on the most text (its misses are the sets' own, listed above).
  if (heldOut.length > 1) fixtures.push({ name: 'held-out sets together', lines: heldOut.flatMap((set) => set.lines), listMisses: false });
  const presidio: PresidioRun = options.withoutPresidio
    ? { ok: false, reason: 'not asked for' }
    : await runPresidio([...new Set(fixtures.flatMap((f) => f.lines.map((l) => l.text)))], log);
  const out: string[] = [];
  for (const set of HELD_OUT_FIXTURES) {
    if (findUpIfPresent(set.relative) === null) out.push(`held-out set skipped: ${set.relative} is absent`);
  }
  out.push(presidio.ok ? `Presidio: presidio-analyzer pattern recognizers, no NLP model (bench/pii-presidio.py says which and how)` : `Presidio skipped: ${presidio.reason}`);
  const misses: string[] = [];
  for (const fixture of fixtures) {
    const ours = evaluatePii(fixture.lines, (text) => detectPii(text));
    const theirs = presidio.ok ? evaluatePii(fixture.lines, (text) => presidio.findings.get(text) ?? []) : null;
    out.push('', ...sideBySide(fixture, ours, theirs));
    if (options.verbose && fixture.listMisses) misses.push('', `the redactor on the ${fixture.name}:`, ...missesByClass(ours, fixture.lines));
  }
  return [...out, ...misses].join('\n');
}

function argValue(name: string): number | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : Number(process.argv[at + 1]);
}

if (require.main === module) {
  runPiiBench({
    verbose: process.argv.includes('--verbose'),
    withoutPresidio: process.argv.includes('--without-presidio'),
    corpus: { seed: argValue('--seed') ?? DEFAULT_CORPUS.seed, messages: argValue('--messages') ?? DEFAULT_CORPUS.messages },
  })
    .then((out) => console.log(out))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
