import fs from 'node:fs';
import path from 'node:path';

/**
 * Operator commands (industrial-ops, the demo seed) run next to a stack started by `npm run up`, which
 * publishes its addresses in .data/stack.env. Values already in the environment win.
 */
export function loadStackEnvFile(root = findRepoRoot(__dirname)): void {
  const file = path.join(root, '.data', 'stack.env');
  // Node's own dotenv parser (20.12+); it leaves variables already set alone.
  if (fs.existsSync(file)) process.loadEnvFile(file);
}

/** The folder holding package.json, from source (infra/) or compiled (dist/infra/) code alike. */
export function findRepoRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}
