// Table-driven cases for the PII detectors: texts that hold one value of a type, and look-alikes.
import { type PiiType, detectPii } from '../../domain/privacy/pii';

/** Every finding in the text, as its type and the text it covers. */
export function found(text: string): Array<[PiiType, string]> {
  return detectPii(text).map((f) => [f.type, text.slice(f.start, f.end)]);
}

export type Finds = Array<[label: string, text: string, value: string]>;
export type Keeps = Array<[label: string, text: string]>;

/**
 * Each `finds` text holds exactly its one value, found as `type`. No `keeps` text has anything
 * found (`keptFrom: 'all'`), or nothing found as `type` (`'type'`: the text may hold other values).
 */
export function detects(type: PiiType, finds: Finds, keeps: Keeps = [], keptFrom: 'all' | 'type' = 'all'): void {
  if (finds.length > 0) {
    it.each(finds)('finds %s', (_case, text, value) => {
      expect(found(text)).toEqual([[type, value]]);
    });
  }
  if (keeps.length > 0) {
    it.each(keeps)('keeps %s', (_case, text) => {
      expect(found(text).filter(([t]) => keptFrom === 'all' || t === type)).toEqual([]);
    });
  }
}
