import { jsonShapeExcess } from '../../../domain/json-depth';

describe('jsonShapeExcess', () => {
  it('counts the nesting of arrays and objects alike, up to and past the bound', () => {
    expect(jsonShapeExcess('[[[]]]', 3)).toBe(null);
    expect(jsonShapeExcess('[[[[]]]]', 3)).toBe('depth');
    expect(jsonShapeExcess('{"a":{"b":[{}]}}', 3)).toBe('depth');
    expect(jsonShapeExcess('[[],[],[],[]]', 2)).toBe(null);
  });

  it('counts the members of each array and object on its own', () => {
    expect(jsonShapeExcess('[1,2,3]', 64, 3)).toBe(null);
    expect(jsonShapeExcess('[1,2,3,4]', 64, 3)).toBe('members');
    expect(jsonShapeExcess('{"a":1,"b":2,"c":[1,2,3],"d":{"e":1,"f":2}}', 64, 4)).toBe(null);
    expect(jsonShapeExcess('{"a":1,"b":2,"c":3,"d":[],"e":0}', 64, 4)).toBe('members');
  });

  it('does not count brackets or commas inside strings, escaped quotes included', () => {
    expect(jsonShapeExcess('{"a":"[[[[{{{{,,,,,"}', 1, 2)).toBe(null);
    expect(jsonShapeExcess('{"a":"\\"[[[[\\\\"}', 1)).toBe(null);
    expect(jsonShapeExcess('["\\\\",[[]]]', 2)).toBe('depth');
  });

  it('reads 100 000 levels or members in one pass, without recursion', () => {
    const started = performance.now();
    expect(jsonShapeExcess('['.repeat(100_000) + ']'.repeat(100_000))).toBe('depth');
    expect(jsonShapeExcess(`[${'1,'.repeat(100_000)}1]`)).toBe('members');
    expect(jsonShapeExcess(`["${'x'.repeat(1_000_000)}"]`)).toBe(null);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
