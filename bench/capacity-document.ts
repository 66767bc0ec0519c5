/**
 * Where the capacity model's inputs live and the document its tables go into. `npm run bench --
 * capacity` writes both; after a change to the model alone, `npm run build && node
 * dist/bench/capacity-document.js` rewrites the document's tables from the committed inputs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { capacitySection, type CapacityInputs, withSection } from './capacity-model';

/** The checkout's root, from the source (tests) or from dist/: the first folder up with a package.json. */
function rootFrom(dir: string): string {
  return fs.existsSync(path.join(dir, 'package.json')) ? dir : rootFrom(path.dirname(dir));
}
const ROOT = rootFrom(__dirname);
export const INPUTS_FILE = path.join(ROOT, 'bench', 'capacity-inputs.json');
export const DOCUMENT = path.join(ROOT, 'docs', 'CAPACITY.md');

export const readCapacityInputs = (): CapacityInputs => JSON.parse(fs.readFileSync(INPUTS_FILE, 'utf8')) as CapacityInputs;

/** Writes `inputs` (when given) and the document's tables from the inputs on file; answers the files written, relative to the checkout. */
export function writeCapacityDocument(inputs?: CapacityInputs): string[] {
  if (inputs) fs.writeFileSync(INPUTS_FILE, `${JSON.stringify(inputs, null, 2)}\n`);
  fs.writeFileSync(DOCUMENT, withSection(fs.readFileSync(DOCUMENT, 'utf8'), capacitySection(readCapacityInputs())));
  return [...(inputs ? [INPUTS_FILE] : []), DOCUMENT].map((file) => path.relative(ROOT, file));
}

if (require.main === module) process.stdout.write(`rewrote ${writeCapacityDocument().join(', ')}\n`);
