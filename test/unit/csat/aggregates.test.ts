import { aggregateTallies, csatPercent, GroupedTally, netPromoterScore, summariseTallies } from '../../../domain/csat/aggregates';
import { parseScoreReply } from '../../../domain/csat/reply';
import { invitationText } from '../../../domain/csat/scale';

describe('csatPercent and netPromoterScore', () => {
  it('computes the share of 4-5 and promoters minus detractors', () => {
    expect(csatPercent([5, 4, 3, 2, 5])).toBe(60);
    expect(csatPercent([5, 4, 4])).toBe(100);
    expect(csatPercent([1, 2, 3])).toBe(0);
    expect(netPromoterScore([10, 9, 8, 6, 0])).toBe(0);
    expect(netPromoterScore([10, 10, 9, 7])).toBe(75);
    expect(netPromoterScore([0, 6, 8])).toBe(-66.7);
  });

  it('rounds to one decimal and is null without responses', () => {
    expect(csatPercent([5, 1, 1])).toBe(33.3);
    expect(csatPercent([5, 5, 1])).toBe(66.7);
    expect(csatPercent([])).toBeNull();
    expect(netPromoterScore([])).toBeNull();
    expect(Object.is(netPromoterScore([7, 8]), 0)).toBe(true); // never -0
  });

  it('summarises tallies of both scales separately, counting all', () => {
    expect(
      summariseTallies([
        { scale: 'csat_5', score: 5, count: 3 },
        { scale: 'csat_5', score: 2, count: 1 },
        { scale: 'nps_10', score: 10, count: 1 },
        { scale: 'nps_10', score: 3, count: 3 },
      ]),
    ).toEqual({ response_count: 8, csat_percent: 75, nps: -50 });
  });
});

describe('aggregateTallies', () => {
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  const rows: GroupedTally[] = [
    { scale: 'csat_5', score: 5, count: 2, agent_id: B, day: '2026-03-02' },
    { scale: 'csat_5', score: 3, count: 1, agent_id: A, day: '2026-03-01' },
    { scale: 'csat_5', score: 4, count: 1, agent_id: A, day: '2026-03-02' },
    { scale: 'nps_10', score: 9, count: 1, agent_id: null, day: '2026-03-01' },
  ];

  it('groups by agent (by id, unassigned last) and by day (ascending)', () => {
    expect(aggregateTallies(rows)).toEqual({
      response_count: 5,
      csat_percent: 75,
      nps: 100,
      per_agent: [
        { agent_id: A, response_count: 2, csat_percent: 50, nps: null },
        { agent_id: B, response_count: 2, csat_percent: 100, nps: null },
        { agent_id: null, response_count: 1, csat_percent: null, nps: 100 },
      ],
      per_day: [
        { date: '2026-03-01', response_count: 2, csat_percent: 0, nps: 100 },
        { date: '2026-03-02', response_count: 3, csat_percent: 100, nps: null },
      ],
    });
  });

  it('answers nulls and empty lists without responses', () => {
    expect(aggregateTallies([])).toEqual({ response_count: 0, csat_percent: null, nps: null, per_agent: [], per_day: [] });
  });
});

describe('parseScoreReply', () => {
  it.each([
    ['4', 'csat_5', { score: 4, comment: null }],
    [' 4 - quick fix, thanks ', 'csat_5', { score: 4, comment: 'quick fix, thanks' }],
    ['5!', 'csat_5', { score: 5, comment: null }],
    ['4/5 good', 'csat_5', { score: 4, comment: 'good' }],
    ['10', 'nps_10', { score: 10, comment: null }],
    ['0: never again', 'nps_10', { score: 0, comment: 'never again' }],
    ['9/10\nvery helpful', 'nps_10', { score: 9, comment: 'very helpful' }],
  ] as const)('%j on %s is a score', (body, scale, expected) => {
    expect(parseScoreReply(body, scale)).toEqual(expected);
  });

  it.each([
    ['0', 'csat_5'],
    ['6', 'csat_5'],
    ['11', 'nps_10'],
    ['4.5', 'csat_5'],
    ['45 pumps', 'nps_10'],
    ['thanks, 5', 'csat_5'],
    ['', 'csat_5'],
    ['five', 'csat_5'],
  ] as const)('%j on %s is not a score', (body, scale) => {
    expect(parseScoreReply(body, scale)).toBeNull();
  });
});

describe('invitationText', () => {
  it('asks the question with the scale range', () => {
    expect(invitationText('How did we do? ', 'nps_10')).toBe('How did we do?\nPlease reply with a number from 0 to 10 (you may add a comment after it).');
  });
});
