import * as fs from 'fs';
import * as path from 'path';
import { parseCmapss, parseRulFile } from '../../../domain/prognostics/cmapss';
import { casesFromCmapss, evaluate, phmScore } from '../../../domain/prognostics/evaluate';
import { FD001_MODEL } from '../../../domain/prognostics/index';
import type { CycleRecord } from '../../../domain/prognostics/types';

// Measured with cmapss-fd001-blend-v4: RMSE 10.883, score 180.18 (v3: 11.013, 188.90). The ceilings are
// issue 20's RMSE target and a margin of 10 on the score: above them the served model no longer meets it.
const RMSE_CEILING = 11.0;
const SCORE_CEILING = 190;

const data = (name: string) => fs.readFileSync(path.join(__dirname, '../../../data/cmapss', name), 'utf8');

describe('phmScore', () => {
  it('penalises late predictions (d >= 0) with exp(d/10) - 1 and early ones with exp(-d/13) - 1', () => {
    expect(phmScore(0)).toBe(0);
    expect(phmScore(10)).toBeCloseTo(Math.E - 1, 12);
    expect(phmScore(-13)).toBeCloseTo(Math.E - 1, 12);
    expect(phmScore(20)).toBeCloseTo(6.389056, 6); // e^2 - 1
    expect(phmScore(-26)).toBeCloseTo(6.389056, 6);
    expect(phmScore(5)).toBeGreaterThan(phmScore(-5));
  });

  it('evaluate skips (does not score) a series the model refuses', () => {
    const tooShort: CycleRecord[] = [{ cycle: 1, sensors: {} }];
    const result = evaluate([{ unit: 7, series: tooShort, true_rul: 10 }]);
    expect(result.engines).toEqual([]);
    expect(result.skipped).toEqual([{ unit: 7, insufficient: { reason: 'too_few_cycles', required_cycles: 30, available_cycles: 1 } }]);
  });
});

describe('FD001 test set (100 engines, last cycle, through predictRul)', () => {
  const cases = casesFromCmapss(parseCmapss(data('test_FD001.txt')), parseRulFile(data('RUL_FD001.txt')));
  const result = evaluate(cases);

  it('scores every engine', () => {
    expect(cases).toHaveLength(100);
    expect(result.engines).toHaveLength(100);
    expect(result.skipped).toEqual([]);
  });

  it('RMSE stays well below the failure line of 16 (published LSTM 16.14, CNN 12.61)', () => {
    expect(result.rmse).toBeLessThan(16);
    expect(result.rmse).toBeLessThanOrEqual(RMSE_CEILING);
  });

  it('PHM08 score matches the sum over engines and stays at its measured level', () => {
    const recomputed = result.engines.reduce((s, e) => s + phmScore(e.predicted - e.true_rul), 0);
    expect(result.score).toBeCloseTo(recomputed, 9);
    expect(result.score).toBeLessThanOrEqual(SCORE_CEILING);
  });

  it('predictions stay within [0, rul_cap]', () => {
    for (const e of result.engines) {
      expect(e.predicted).toBeGreaterThanOrEqual(0);
      expect(e.predicted).toBeLessThanOrEqual(FD001_MODEL.rul_cap);
    }
  });
});

describe('casesFromCmapss', () => {
  it('refuses a RUL file whose length differs from the number of engines', () => {
    expect(() => casesFromCmapss([{ unit: 1, records: [] }], [1, 2])).toThrow('1 engines in the test file but 2 values');
  });
});
