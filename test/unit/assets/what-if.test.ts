import { toleranceBand } from '../../../domain/assets/band';
import { cycleSeries, missingSensors } from '../../../domain/assets/cycles';
import { defaultPredictiveConfig } from '../../../domain/assets/predictive-config';
import { applyToCycles, projectParameters, resolveChanges } from '../../../domain/assets/what-if';

const config = { ...defaultPredictiveConfig('pump'), model_inputs: { motor_load: 's7', bearing_temp: 's3' }, operational_parameters: { load: 'motor_load' } };

describe('resolveChanges', () => {
  it('maps operational names through the config and parameters to their model sensors', () => {
    expect(resolveChanges({ load: 20, bearing_temp: -5, speed: 10 }, config)).toEqual([
      { target: 'load', parameter: 'motor_load', percent: 20, model_sensor: 's7' },
      { target: 'bearing_temp', parameter: 'bearing_temp', percent: -5, model_sensor: 's3' },
      { target: 'speed', parameter: 'speed', percent: 10, model_sensor: null },
    ]);
  });
});

describe('applyToCycles', () => {
  it('scales the changed sensors on the last `window` cycles only', () => {
    const series = [1, 2, 3, 4].map((cycle) => ({ cycle, sensors: { s7: 100, s3: 50 } }));
    const changed = applyToCycles(series, resolveChanges({ load: 20 }, config), 2);
    expect(changed.map((r) => r.sensors)).toEqual([
      { s7: 100, s3: 50 },
      { s7: 100, s3: 50 },
      { s7: 120, s3: 50 },
      { s7: 120, s3: 50 },
    ]);
    expect(series[3]?.sensors.s7).toBe(100); // input untouched
  });
});

describe('projectParameters', () => {
  it('projects current values and judges them against their baselines', () => {
    const projected = projectParameters(
      resolveChanges({ load: 20, bearing_temp: 10 }, config),
      new Map([
        ['motor_load', 80],
        ['bearing_temp', 60],
      ]),
      new Map([['motor_load', toleranceBand(80, 15)]]),
    );
    expect(projected).toEqual([
      { parameter: 'motor_load', current_value: 80, projected_value: 96, baseline_value: 80, outside_tolerance: true },
      { parameter: 'bearing_temp', current_value: 60, projected_value: 66, baseline_value: null, outside_tolerance: null },
    ]);
  });
});

describe('cycleSeries', () => {
  it('renames mapped parameters to sensors, drops incomplete cycles and unmapped parameters, orders by cycle', () => {
    const series = cycleSeries(
      [
        { cycle: 2, parameter: 'motor_load', value: 81 },
        { cycle: 2, parameter: 'bearing_temp', value: 61 },
        { cycle: 1, parameter: 'motor_load', value: 80 },
        { cycle: 1, parameter: 'bearing_temp', value: 60 },
        { cycle: 1, parameter: 'humidity', value: 3 },
        { cycle: 3, parameter: 'motor_load', value: 82 },
      ],
      config.model_inputs,
    );
    expect(series).toEqual([
      { cycle: 1, sensors: { s7: 80, s3: 60 } },
      { cycle: 2, sensors: { s7: 81, s3: 61 } },
    ]);
  });
});

describe('missingSensors', () => {
  const averages = [
    { cycle: 1, parameter: 'motor_load', value: 80 },
    { cycle: 1, parameter: 'humidity', value: 3 },
  ];

  it('lists model sensors not mapped, or mapped from a parameter without readings', () => {
    expect(missingSensors(averages, config.model_inputs, ['s3', 's7', 's9'])).toEqual(['s3', 's9']);
  });

  it('is empty without any data (that is too few cycles, not a missing sensor)', () => {
    expect(missingSensors([], config.model_inputs, ['s3', 's7', 's9'])).toEqual([]);
  });
});
