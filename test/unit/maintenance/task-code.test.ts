import { formatTaskCode, isValidTaskPrefix, parseTaskCode } from '../../../domain/maintenance/task-code';

describe('task codes', () => {
  it('pads to 6 digits and grows beyond', () => {
    expect(formatTaskCode('PM', 42)).toBe('PM-000042');
    expect(formatTaskCode('PM', 1)).toBe('PM-000001');
    expect(formatTaskCode('PM', 999_999)).toBe('PM-999999');
    expect(formatTaskCode('PM', 1_000_000)).toBe('PM-1000000');
    expect(formatTaskCode('ABCDEFGHIJ', 7)).toBe('ABCDEFGHIJ-000007');
  });

  it.each(['pm', 'Pm', 'P1', '', 'ABCDEFGHIJK', 'PM-', 'PÉ', ' PM'])('refuses the prefix %j', (prefix) => {
    expect(isValidTaskPrefix(prefix)).toBe(false);
    expect(() => formatTaskCode(prefix, 1)).toThrow(RangeError);
  });

  it.each([0, -1, 1.5, Number.NaN, 2 ** 53])('refuses the number %p', (n) => {
    expect(() => formatTaskCode('PM', n)).toThrow(RangeError);
  });

  it('parses canonical codes only', () => {
    expect(parseTaskCode('PM-000042')).toEqual({ prefix: 'PM', number: 42 });
    expect(parseTaskCode('WO-1234567')).toEqual({ prefix: 'WO', number: 1_234_567 });
    for (const bad of ['PM-42', 'PM-0000042', 'pm-000042', 'PM-000000', 'PM000042', 'PM-00004a', 'ABCDEFGHIJK-000001', '']) {
      expect(parseTaskCode(bad)).toBeNull();
    }
  });

  it('round-trips', () => {
    for (const n of [1, 42, 999_999, 1_000_000, 123_456_789]) {
      expect(parseTaskCode(formatTaskCode('INSP', n))).toEqual({ prefix: 'INSP', number: n });
    }
  });
});
