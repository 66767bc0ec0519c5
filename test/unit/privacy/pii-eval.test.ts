// Look-alike scoring and the fields the bench corpus adds (forms, look-alikes); the strict span
// rules themselves are tested with the detectors (pii.test.ts).
import { evaluatePii, goldSpans, parseLabelledJsonl } from '../../../domain/privacy/pii-eval';

describe('pii-eval look-alikes', () => {
  const lines = [
    {
      text: 'fw v2.14.3, card ending 4242, call 612 345 678',
      entities: [{ type: 'phone' as const, value: '612 345 678', form: 'national' }],
      lookalikes: [
        { kind: 'firmware', value: 'v2.14.3' },
        { kind: 'last_four', value: '4242' },
      ],
    },
    { text: 'code v = m.inv@acc.vec twice: m.inv@acc.vec', entities: [], lookalikes: [{ kind: 'code', value: 'm.inv@acc.vec' }] },
  ];

  it('counts a look-alike lost when any prediction overlaps any of its occurrences, whatever its type', () => {
    const report = evaluatePii(
      lines,
      (text) =>
        text.startsWith('fw')
          ? [
              { type: 'credit_card', start: 24, end: 28 }, // "4242"
              { type: 'phone', start: 35, end: 46 },
            ]
          : [{ type: 'email', start: 30, end: 43 }], // the second occurrence only
    );
    expect(report.lookalikes).toEqual({
      total: 3,
      lost: 2,
      losses: [
        { line: 1, kind: 'last_four', value: '4242', redacted: '4242', type: 'credit_card' },
        { line: 2, kind: 'code', value: 'm.inv@acc.vec', redacted: 'm.inv@acc.vec', type: 'email' },
      ],
    });
    expect(report.perType.phone).toMatchObject({ tp: 1, fp: 0, fn: 0 });
  });

  it('reports no look-alike score for a fixture that labels none', () => {
    expect(evaluatePii([{ text: 'x', entities: [] }], () => []).lookalikes).toBeNull();
  });

  it('keeps the form of a missed value and of a gold span', () => {
    const report = evaluatePii(lines, () => []);
    expect(report.misses).toEqual([{ kind: 'false_negative', line: 1, type: 'phone', value: '612 345 678', form: 'national' }]);
    expect(goldSpans(lines[0])).toEqual([{ type: 'phone', start: 35, end: 46, form: 'national' }]);
  });

  it('parses look-alikes and forms from JSON lines and refuses a look-alike not in its text', () => {
    const parsed = parseLabelledJsonl(JSON.stringify(lines[0]));
    expect(parsed).toEqual([lines[0]]);
    expect(() => parseLabelledJsonl('{"text": "a", "entities": [], "lookalikes": [{"kind": "ip", "value": "10.0.0.1"}]}')).toThrow('fixture line 1: bad look-alike');
  });
});
