import { InvalidInstantError, isValidInstant, toDate, toIso } from '../../../domain/maintenance/instant';

describe('instants', () => {
  it('accepts dates (midnight UTC) and date-times with an offset', () => {
    expect(toIso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(toIso('2024-01-31T08:00Z')).toBe('2024-01-31T08:00:00.000Z');
    expect(toIso('2024-01-31T08:00:00+05:30')).toBe('2024-01-31T02:30:00.000Z');
    expect(toIso(new Date(Date.UTC(2024, 0, 1)))).toBe('2024-01-01T00:00:00.000Z');
  });
  it.each(['2024-01-31T08:00:00', '2023-02-29', '2023-02-30T00:00:00Z', '2023-02-28T24:00:00Z', '2024-13-01', 'yesterday', '', '2024-01-31T08:00:00+01:00:00'])(
    'rejects %j',
    (text) => {
      expect(() => toDate(text)).toThrow(InvalidInstantError);
      expect(isValidInstant(text)).toBe(false);
    },
  );
  it('rejects an invalid Date object', () => {
    expect(() => toDate(new Date(NaN))).toThrow(InvalidInstantError);
  });
});
