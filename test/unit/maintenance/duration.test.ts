import { addDuration, InvalidDurationError, isValidDuration, isZeroDuration, parseDuration, subtractDuration } from '../../../domain/maintenance/duration';

describe('parseDuration', () => {
  it('parses every component of PnYnMnWnDTnHnMnS', () => {
    expect(parseDuration('P1Y2M3W4DT5H6M7.5S')).toEqual({
      years: 1,
      months: 2,
      weeks: 3,
      days: 4,
      hours: 5,
      minutes: 6,
      seconds: 7.5,
    });
  });

  it.each([
    ['P0D', { days: 0 }],
    ['P1D', { days: 1 }],
    ['PT12H', { hours: 12 }],
    ['P2W', { weeks: 2 }],
    ['PT90M', { minutes: 90 }],
    ['P1M', { months: 1 }],
    ['PT1M', { minutes: 1 }],
  ])('%s', (text, parts) => {
    expect(parseDuration(text)).toEqual({ years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0, ...parts });
  });

  it.each(['', 'P', 'PT', 'P1DT', '1D', 'P-1D', 'P1.5D', 'p1d', 'P1H', 'PT1D', 'P1D2M', ' P1D', 'P1DT1H ', 'P1,5D', 'PT0.1234S', 'P1000001D', 'P1D/P2D'])(
    'rejects %j with InvalidDurationError',
    (text) => {
      expect(() => parseDuration(text)).toThrow(InvalidDurationError);
      expect(isValidDuration(text)).toBe(false);
    },
  );

  it('rejects non-strings', () => {
    expect(isValidDuration(null)).toBe(false);
    expect(isValidDuration(86400)).toBe(false);
    expect(() => parseDuration(42 as unknown as string)).toThrow('not a string');
  });

  it('names the bad input and the expected form in the message', () => {
    expect(() => parseDuration('1 day')).toThrow('invalid ISO 8601 duration "1 day": expected the form PnYnMnWnDTnHnMnS');
  });

  it('recognises zero durations', () => {
    expect(isZeroDuration(parseDuration('P0D'))).toBe(true);
    expect(isZeroDuration(parseDuration('PT0S'))).toBe(true);
    expect(isZeroDuration(parseDuration('PT1S'))).toBe(false);
  });
});

describe('addDuration / subtractDuration (UTC)', () => {
  const at = (d: Date) => d.toISOString();
  it('months clamp to the month end, both ways', () => {
    expect(at(addDuration('2024-01-31T00:00:00Z', 'P1M'))).toBe('2024-02-29T00:00:00.000Z');
    expect(at(subtractDuration('2024-03-31T08:00:00Z', 'P1M'))).toBe('2024-02-29T08:00:00.000Z');
    expect(at(addDuration('2024-02-29T00:00:00Z', 'P1Y'))).toBe('2025-02-28T00:00:00.000Z');
  });
  it('weeks, days and time are exact lengths', () => {
    expect(at(addDuration('2024-03-30T12:00:00Z', 'PT36H'))).toBe('2024-04-01T00:00:00.000Z');
    expect(at(subtractDuration('2024-03-05T00:00:00Z', 'P1W'))).toBe('2024-02-27T00:00:00.000Z');
    expect(at(addDuration('2024-01-01T00:00:00Z', 'PT0.5S'))).toBe('2024-01-01T00:00:00.500Z');
  });
  it('applies the largest component first', () => {
    // Jan 31 + 1 month = Feb 29, + 1 day = Mar 1 (not Jan 31 + 1 day = Feb 1, + 1 month = Mar 1 by luck)
    expect(at(addDuration('2024-01-31T00:00:00Z', 'P1M1D'))).toBe('2024-03-01T00:00:00.000Z');
    expect(at(subtractDuration('2024-03-31T00:00:00Z', 'P1M1D'))).toBe('2024-02-28T00:00:00.000Z');
  });
  it('P0D is the identity', () => {
    expect(at(subtractDuration('2024-05-05T05:05:05Z', 'P0D'))).toBe('2024-05-05T05:05:05.000Z');
  });
  it('rejects garbage durations when applying', () => {
    expect(() => addDuration('2024-01-01T00:00:00Z', 'one week')).toThrow(InvalidDurationError);
  });
});
