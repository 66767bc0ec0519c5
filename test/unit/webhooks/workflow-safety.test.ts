import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The delivery workflow imports these; the workflow sandbox forbids Node modules and I/O.
const WORKFLOW_SAFE = ['schedule.ts', 'outcome.ts', 'retry-after.ts', 'matching.ts', 'payload.ts'];
const dir = join(__dirname, '../../../domain/webhooks');
// Pure modules of other folders they may import (checked below to import nothing themselves).
const SAFE_ELSEWHERE = ['../events/catalogue'];

function importsOf(file: string): string[] {
  const source = readFileSync(join(dir, file), 'utf8');
  return [...source.matchAll(/(?:from\s+|require\(\s*|import\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

describe('domain/webhooks modules used by workflows', () => {
  it.each(WORKFLOW_SAFE)('%s imports only other workflow-safe modules of its folder', (file) => {
    const allowed = [...WORKFLOW_SAFE.map((name) => `./${name.replace(/\.ts$/, '')}`), ...SAFE_ELSEWHERE];
    expect(importsOf(file).filter((spec) => !allowed.includes(spec))).toEqual([]);
  });

  it.each(SAFE_ELSEWHERE)('%s imports nothing', (spec) => {
    expect(importsOf(`${spec}.ts`)).toEqual([]);
  });

  it('the check sees imports (signing.ts uses node:crypto)', () => {
    expect(importsOf('signing.ts')).toContain('node:crypto');
  });

  it.each(WORKFLOW_SAFE)('%s reads no clock of its own', (file) => {
    expect(readFileSync(join(dir, file), 'utf8')).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now|Math\.random/);
  });
});
