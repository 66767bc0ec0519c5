import { agentStatusAfterChannelChange, EVENT_TYPE_PATTERN } from '../../../domain/agents/agents';
import { validateToolParameters } from '../../../domain/agents/tool-parameters';

describe('agent status after a channel change', () => {
  it('moves active agents to error when the channel goes inactive, and error agents back when it returns', () => {
    expect(agentStatusAfterChannelChange('inactive')).toEqual({ from: 'active', to: 'error' });
    expect(agentStatusAfterChannelChange('active')).toEqual({ from: 'error', to: 'active' });
  });
});

describe('event type names', () => {
  it.each(['task.created', 'vibration.threshold_exceeded', 'asset.alert.raised'])('accepts %s', (name) => {
    expect(EVENT_TYPE_PATTERN.test(name)).toBe(true);
  });
  it.each(['task', 'Task.created', '.created', 'task.', 'task..created', 'task.created*', 'task created'])('refuses %s', (name) => {
    expect(EVENT_TYPE_PATTERN.test(name)).toBe(false);
  });
});

describe('tool parameters schema', () => {
  it('accepts a function-calling object schema with nested arrays and objects', () => {
    expect(
      validateToolParameters({
        type: 'object',
        properties: {
          asset_id: { type: 'string', description: 'Asset', format: 'uuid' },
          priority: { type: 'string', enum: ['low', 'high'] },
          hours: { type: 'number', minimum: 0, maximum: 100 },
          steps: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
        },
        required: ['asset_id'],
      }),
    ).toEqual([]);
    expect(validateToolParameters({ type: 'object' })).toEqual([]);
  });

  it('names the path of every problem', () => {
    expect(validateToolParameters({ type: 'array' })).toEqual([{ path: 'parameters', message: 'must be a JSON schema with "type": "object"' }]);
    expect(
      validateToolParameters({
        type: 'object',
        properties: { a: { type: 'decimal' }, b: { type: 'array' }, c: { type: 'string', $ref: '#/x' }, d: { type: 'string', enum: [] } },
        required: ['a', 'zz'],
      }),
    ).toEqual([
      { path: 'parameters.properties.a.type', message: 'must be one of string, number, integer, boolean, array, object' },
      { path: 'parameters.properties.b.items', message: 'is required for an array' },
      { path: 'parameters.properties.c.$ref', message: 'is not a supported schema keyword' },
      { path: 'parameters.properties.d.enum', message: 'must be a non-empty array' },
      { path: 'parameters.required', message: '"zz" is not a declared property' },
    ]);
  });

  it('refuses schemas nested deeper than 5 levels', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 6; i += 1) schema = { type: 'object', properties: { x: schema } };
    expect(validateToolParameters(schema).map((i) => i.message)).toEqual(['nests deeper than 5 levels']);
  });
});
