import { toleranceBand } from '../../../domain/assets/band';
import { judgeLateReadings } from '../../../domain/assets/late-readings';

/** 90..110 */
const band = toleranceBand(100, 10);
const r = (t: number, value: number) => ({ t, value });

describe('late readings judged at their own time', () => {
  it('starts an excursion of its own, ended by the first later stored reading inside', () => {
    const late = [r(20, 125), r(30, 118), r(10, 103)];
    const series = [r(10, 103), r(20, 125), r(30, 118), r(40, 104), r(50, 130)];
    expect(judgeLateReadings(band, late, series, [])).toEqual([
      { kind: 'raise', excursion: { started: r(20, 125), direction: 'above', peakValue: 125, lastOutside: r(30, 118), ended: r(40, 104) } },
    ]);
  });

  it('extends a recorded alert it falls within, resolved or not, and never starts a second one there', () => {
    const alerts = [
      { id: 'resolved', raisedAt: 10, resolvedAt: 40 },
      { id: 'open', raisedAt: 60, resolvedAt: null },
    ];
    const late = [r(20, 140), r(30, 80), r(70, 150), r(45, 100)];
    expect(judgeLateReadings(band, late, [], alerts)).toEqual([
      { kind: 'extend', alertId: 'resolved', readings: [r(20, 140), r(30, 80)] },
      { kind: 'extend', alertId: 'open', readings: [r(70, 150)] },
    ]);
  });

  it('an excursion that runs into a recorded alert started earlier: that alert is backdated', () => {
    const alerts = [{ id: 'later', raisedAt: 30, resolvedAt: 50 }];
    const series = [r(10, 120), r(20, 135), r(30, 115), r(50, 100)];
    expect(judgeLateReadings(band, [r(10, 120), r(20, 135)], series, alerts)).toEqual([
      { kind: 'backdate', alertId: 'later', excursion: { started: r(10, 120), direction: 'above', peakValue: 135, lastOutside: r(20, 135), ended: null } },
    ]);
  });

  it('a reading at the resolution time is after the alert: an excursion of its own', () => {
    const alerts = [{ id: 'a', raisedAt: 10, resolvedAt: 20 }];
    expect(judgeLateReadings(band, [r(20, 85)], [r(20, 85), r(25, 95)], alerts)).toEqual([
      { kind: 'raise', excursion: { started: r(20, 85), direction: 'below', peakValue: 85, lastOutside: r(20, 85), ended: r(25, 95) } },
    ]);
  });
});
