/**
 * The shortest gap between two fires of a cron expression: within an hour, across hours, across
 * midnight (only when two consecutive days both fire, month ends and 29 February included), and
 * at a time zone's clock changes; and the 15-minute rule built on it.
 */
import { shortestCronGap } from '../../../domain/reports/cron-gap';
import { cronGapProblem } from '../../../domain/reports/schedule';

// Before the 2027 spring change in Europe (28 March) and the autumn one (31 October).
const FROM = new Date('2027-01-10T00:00:00Z');
const gap = (expression: string, timeZone = 'UTC') => shortestCronGap(expression, timeZone, FROM);

describe('shortestCronGap', () => {
  it.each([
    ['* * * * *', 1, 'hour'],
    ['*/5 * * * *', 5, 'hour'],
    ['0,5 * * * *', 5, 'hour'],
    ['*/15 * * * *', 15, 'hour'],
    ['0,50 * * * *', 10, 'hours'],
    ['55 8,9 * * *', 60, 'hours'],
    ['0 6 1 * *', Infinity, 'none'],
    ['0 6 * * *', 1440, 'midnight'],
  ])('%s: %s minutes (%s)', (expression, minutes, where) => {
    expect(gap(expression)).toEqual({ minutes, where });
  });

  it('counts across midnight only when two consecutive days both fire', () => {
    // Every day: 23:55 then 00:05.
    expect(gap('5,55 0,23 * * *')).toEqual({ minutes: 10, where: 'midnight' });
    // Mondays only: Monday 00:05 and Monday 23:55 are the same day, the next Monday a week away.
    expect(gap('5,55 0,23 * * 1').minutes).toBe(50);
    // The 31st and the 1st of the next month are consecutive days.
    expect(gap('5,55 0,23 1,31 * *')).toEqual({ minutes: 10, where: 'midnight' });
    // 28 February and 1 March follow each other in three years out of four.
    expect(gap('5,55 0,23 1,28 2,3 *')).toEqual({ minutes: 10, where: 'midnight' });
    // 29 February is followed by 1 March: only in leap years, still a fire 10 minutes apart.
    expect(gap('5,55 0,23 1,29 2,3 *')).toEqual({ minutes: 10, where: 'midnight' });
    // The 15th and 17th never touch.
    expect(gap('5,55 0,23 15,17 * *').minutes).toBe(50);
    // Day of month and day of week together fire on either: the 31st when it is a Sunday, then Monday the 1st.
    expect(gap('5,55 0,23 31 * 1')).toEqual({ minutes: 10, where: 'midnight' });
    // Sunday (0 or 7) then Monday.
    expect(gap('5,55 0,23 * * 1,7')).toEqual({ minutes: 10, where: 'midnight' });
  });

  it('measures real time at the clock changes of the time zone', () => {
    // On the wall clock 01:59 → 03:00 is 61 minutes; on the spring change in Berlin 02:00 does not exist: 1 minute.
    expect(gap('0,59 1,3 * * *', 'UTC').minutes).toBe(59);
    expect(gap('0,59 1,3 * * *', 'Europe/Berlin')).toEqual({ minutes: 1, where: 'clock_change' });
    // In autumn 01:00-01:59 happens twice in New York: 01:59 EDT and the second 01:00 (EST) are a minute apart.
    expect(gap('0,59 1 * * *', 'America/New_York')).toEqual({ minutes: 1, where: 'clock_change' });
    expect(gap('0,59 1 * * *', 'UTC').minutes).toBe(59);
    // Quarter hours stay quarter hours through both changes.
    expect(gap('*/15 * * * *', 'Europe/Berlin')).toEqual({ minutes: 15, where: 'hour' });
    expect(gap('*/15 * * * *', 'America/New_York').minutes).toBe(15);
  });
});

describe('cronGapProblem', () => {
  it('refuses crons firing less than 15 minutes apart and says where', () => {
    expect(cronGapProblem('* * * * *', 'UTC', FROM)).toBe('fires 1 minute apart within an hour; two runs of a scheduled report must be at least 15 minutes apart');
    expect(cronGapProblem('*/5 * * * *', 'UTC', FROM)).toMatch(/^fires 5 minutes apart within an hour/);
    expect(cronGapProblem('0,50 * * * *', 'UTC', FROM)).toMatch(/^fires 10 minutes apart from one fire hour to the next/);
    expect(cronGapProblem('5,55 0,23 * * *', 'UTC', FROM)).toMatch(/^fires 10 minutes apart across midnight/);
    expect(cronGapProblem('0,59 1,3 * * *', 'Europe/Berlin', FROM)).toMatch(/^fires 1 minute apart at a clock change/);
    for (const ok of ['*/15 * * * *', '0 6 1 * *', '0,30 8-17 * * 1-5', '0,59 1,3 * * *']) expect(cronGapProblem(ok, 'UTC', FROM)).toBeNull();
  });
});
