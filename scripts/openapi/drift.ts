import { isDeepStrictEqual } from 'node:util';
import { GENERATE_COMMAND } from './client-files';

/** JSON pointers where two documents differ (the first `limit`), a key missing on one side included. */
export function differingPointers(a: unknown, b: unknown, limit = 5, at = ''): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) return [at || '/'];
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const out: string[] = [];
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (out.length >= limit) break;
    const pointer = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    out.push(...differingPointers(Object.hasOwn(left, key) ? left[key] : undefined, Object.hasOwn(right, key) ? right[key] : undefined, limit - out.length, pointer));
  }
  return out;
}

/** Null when the committed document is the served one, else where they differ and the command that fixes it. */
export function documentDrift(served: unknown, committed: unknown, committedFile: string): string | null {
  const pointers = differingPointers(served, committed);
  if (pointers.length === 0) return null;
  return `${committedFile} is not the document the API serves (they differ at ${pointers.join(', ')}): run \`${GENERATE_COMMAND}\` and commit the result.`;
}
