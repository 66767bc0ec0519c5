import { buildPayload, canonicalJson, serializePayload } from '../../../domain/webhooks/payload';

const input = {
  eventId: 'evt_1',
  type: 'task.created',
  tenantId: 'ten_1',
  occurredAt: new Date('2025-03-01T12:00:00Z'),
  data: { task_id: 't1', b: [2, { z: 1, a: 'é' }], a: null },
};

describe('canonical payload', () => {
  it('has the DESIGN.md envelope', () => {
    expect(buildPayload(input)).toEqual({
      id: 'evt_1',
      type: 'task.created',
      tenant_id: 'ten_1',
      occurred_at: '2025-03-01T12:00:00.000Z',
      api_version: 'v1',
      data: input.data,
    });
  });

  it('serialises the envelope in order and data with sorted keys', () => {
    expect(serializePayload(buildPayload(input))).toBe(
      '{"id":"evt_1","type":"task.created","tenant_id":"ten_1","occurred_at":"2025-03-01T12:00:00.000Z",' +
        '"api_version":"v1","data":{"a":null,"b":[2,{"a":"é","z":1}],"task_id":"t1"}}',
    );
  });

  it('gives the same bytes whatever the key order (e.g. after a jsonb round trip)', () => {
    const reordered = { ...input, data: { a: null, task_id: 't1', b: [2, { a: 'é', z: 1 }] } };
    expect(serializePayload(buildPayload(reordered))).toBe(serializePayload(buildPayload(input)));
  });

  it('parses back to the payload', () => {
    const payload = buildPayload(input);
    expect(JSON.parse(serializePayload(payload))).toEqual(payload);
  });

  it('refuses a bad type, empty ids and an invalid date', () => {
    expect(() => buildPayload({ ...input, type: 'created' })).toThrow(TypeError);
    expect(() => buildPayload({ ...input, tenantId: '' })).toThrow(TypeError);
    expect(() => buildPayload({ ...input, occurredAt: new Date('nope') })).toThrow(TypeError);
  });
});

describe('canonicalJson', () => {
  it('escapes like JSON and sorts keys by code unit', () => {
    expect(canonicalJson({ b: 'line\n"q"', B: 1, a: [true, 1.5, -0, 1e21] })).toBe('{"B":1,"a":[true,1.5,0,1e+21],"b":"line\\n\\"q\\""}');
  });

  it('drops undefined properties, as JSON and jsonb do', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('accepts objects without prototype', () => {
    const bare = Object.assign(Object.create(null), { y: 1, x: 2 });
    expect(canonicalJson(bare)).toBe('{"x":2,"y":1}');
  });

  it.each([[Number.NaN], [Infinity], [[undefined]], [new Date(0)], [new Map()], [BigInt(1)], [() => 1]])('refuses %p instead of silently changing it', (value) => {
    expect(() => canonicalJson({ v: value })).toThrow(TypeError);
  });
});
