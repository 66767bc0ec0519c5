import type { CycleRecord } from './types';

/**
 * Parser for the C-MAPSS text format (NASA turbofan degradation data): one row per cycle,
 * space separated: unit, cycle, 3 operational settings, sensors s1..s21. Pure: takes the text.
 */

export interface CmapssEngine {
  readonly unit: number;
  readonly records: readonly CycleRecord[];
}

const SENSOR_COUNT = 21;
const FIRST_SENSOR_COLUMN = 5;

/** Engines in order of first appearance; each engine's records in file order. */
export function parseCmapss(text: string): CmapssEngine[] {
  const byUnit = new Map<number, CycleRecord[]>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '') return;
    const cols = trimmed.split(/\s+/).map(Number);
    if (cols.length < FIRST_SENSOR_COLUMN + SENSOR_COUNT || cols.some((c) => !Number.isFinite(c))) {
      throw new Error(`C-MAPSS line ${index + 1}: expected ${FIRST_SENSOR_COLUMN + SENSOR_COUNT} numbers`);
    }
    const sensors: Record<string, number> = {};
    for (let s = 1; s <= SENSOR_COUNT; s++) sensors[`s${s}`] = cols[FIRST_SENSOR_COLUMN + s - 1] as number;
    const unit = cols[0] as number;
    const records = byUnit.get(unit) ?? [];
    records.push({ cycle: cols[1] as number, sensors });
    byUnit.set(unit, records);
  });
  return [...byUnit.entries()].map(([unit, records]) => ({ unit, records }));
}

/** The RUL file: one true remaining useful life (cycles) per test engine, in engine order. */
export function parseRulFile(text: string): number[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l, i) => {
      const v = Number(l);
      if (!Number.isFinite(v) || v < 0) throw new Error(`RUL line ${i + 1}: not a non-negative number`);
      return v;
    });
}
