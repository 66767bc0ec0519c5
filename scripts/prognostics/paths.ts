import * as fs from 'fs';
import * as path from 'path';

/** The repository root: the nearest directory above this file with a package.json (works from dist/ too). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + __dirname);
    dir = parent;
  }
  return dir;
}

/** A path given on the command line, relative to where the user ran `npm run` (INIT_CWD) or the cwd. */
export function userPath(p: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), p);
}
