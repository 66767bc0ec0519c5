import { jsonNestsDeeperThan } from '../../../domain/json-depth';

describe('jsonNestsDeeperThan', () => {
  it('counts arrays and objects alike, up to and past the bound', () => {
    expect(jsonNestsDeeperThan('[[[]]]', 3)).toBe(false);
    expect(jsonNestsDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(jsonNestsDeeperThan('[[],[],[],[]]', 2)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsDeeperThan('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":"\\"[[[[\\\\"}', 1)).toBe(false);
    expect(jsonNestsDeeperThan('["\\\\",[[]]]', 2)).toBe(true);
  });

  it('reads 100 000 levels in one pass, without recursion', () => {
    const started = performance.now();
    expect(jsonNestsDeeperThan('['.repeat(100_000) + ']'.repeat(100_000), 64)).toBe(true);
    expect(jsonNestsDeeperThan('[1,'.repeat(1) + '2'.repeat(1_000_000) + ']', 64)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
