/**
 * The import graph of the whole tree, read with the TypeScript compiler's own resolution
 * (tsconfig.json): no two files import each other, directly or round a circle, and every import
 * keeps to the layers of scripts/lib/layers.cjs (which ESLint's `layers/imports` also applies,
 * telling type imports from value imports).
 */
import path from 'node:path';
import ts from 'typescript';
import layers = require('../../../scripts/lib/layers.cjs');

const ROOT = path.resolve(__dirname, '../../..');
const relative = (file: string): string => path.relative(ROOT, file).split(path.sep).join('/');

// An import circle is a defect: none is excepted.
const KNOWN_CIRCLES: string[][] = [];

type Graph = Map<string, string[]>;

/** Every file of tsconfig.json and the files of the tree it imports, type imports included. */
function importGraph(): Graph {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json could not be read');
  const cache = ts.createModuleResolutionCache(ROOT, (name) => name, config.options);
  const graph: Graph = new Map();
  for (const file of config.fileNames) {
    const imported = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, true).importedFiles;
    const targets = imported.flatMap(({ fileName }) => {
      const resolved = ts.resolveModuleName(fileName, file, config.options, ts.sys, cache).resolvedModule;
      return resolved && !resolved.isExternalLibraryImport ? [relative(resolved.resolvedFileName)] : [];
    });
    graph.set(relative(file), [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const isKnown = (circle: string[]): boolean => KNOWN_CIRCLES.some((known) => known.length === circle.length && known.every((file, i) => file === circle[i]));

describe('the import graph', () => {
  const graph = importGraph();

  it('reads the tree as the compiler resolves it', () => {
    // A sanity floor: a broken resolution would find no edges and so no circles.
    expect(graph.get('workers/main.ts')).toEqual(expect.arrayContaining(['activities/index.ts', 'infra/config.ts']));
  });

  it('has no import circle', () => {
    expect(circles(graph).filter((circle) => !isKnown(circle))).toEqual([]);
  });

  it('keeps every import to the layers (types counted as allowed here; ESLint tells them apart)', () => {
    const problems = [...graph].flatMap(([from, targets]) =>
      targets
        .map((to) => layers.importProblem(from, to, true))
        .filter((problem) => problem !== null)
        .map((problem) => `${from}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('gives every folder of the tree a layer', () => {
    expect([...graph.keys()].map((file) => layers.folderProblem(file)).filter((problem) => problem !== null)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('find a circle of three files and none in a chain', () => {
    const circle: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(circle)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('refuse the imports that used to break the layers', () => {
    expect(layers.importProblem('infra/outbound/destination-guard.ts', 'activities/webhooks/address-class.ts', false)).toMatch(
      /^infra\/ may import db\/, domain\/, not activities\//,
    );
    expect(layers.importProblem('db/queries/webhooks.ts', 'infra/crypto.ts', false)).toMatch(/^db\/ may import domain\/, not infra\//);
    expect(layers.importProblem('db/migrate-cli.ts', 'infra/env-file.ts', true)).not.toBeNull();
    expect(layers.importProblem('activities/index.ts', 'orchestration/notifications.ts', false)).toMatch(/not orchestration\//);
    expect(layers.importProblem('api/routes/webhooks.ts', 'activities', false)).toMatch(/not activities\//);
    expect(layers.importProblem('domain/maintenance/schedule.ts', 'infra/config.ts', true)).toMatch(/nothing of another layer/);
  });

  it('let workflows take types, not code, from activities and db', () => {
    expect(layers.importProblem('workflows/maintenance-plan.ts', 'db/queries/maintenance.ts', true)).toBeNull();
    expect(layers.importProblem('workflows/maintenance-plan.ts', 'db/queries/maintenance.ts', false)).toMatch(/types of db\//);
  });

  it('allow imports down the layers, inside a layer and from the entry points', () => {
    expect(layers.importProblem('api/routes/assets.ts', 'services/assets.ts', false)).toBeNull();
    expect(layers.importProblem('db/queries/files.ts', 'db/knex.ts', false)).toBeNull();
    expect(layers.importProblem('test/api/assets.test.ts', 'activities/index.ts', false)).toBeNull();
    expect(layers.importProblem('knexfile.ts', 'db/knex.ts', false)).toBeNull();
  });

  it('refuse a folder that has no layer', () => {
    expect(layers.folderProblem('reports/pdf.ts')).toMatch(/^reports\/ is not a layer/);
  });
});
