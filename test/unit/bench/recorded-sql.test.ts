import { freshBindings, statementsTouching, uuidsIn, type RecordedStatement } from '../../../bench/recorded-sql';

const TENANT = '11111111-1111-4111-8111-111111111111';
const REQUEST = '22222222-2222-4222-8222-222222222222';

describe('same-work floor replay', () => {
  it('gives every id but the kept ones a fresh value, the same one throughout a replay, arrays and tags included', () => {
    const fresh = new Map<string, string>();
    const keep = new Set([TENANT]);
    const [tenant, key, again, array, tagged] = freshBindings([TENANT, `request:${REQUEST}`, REQUEST, [REQUEST, 'x'], 'run-a-7'], keep, fresh, ['run-a'], 3) as [
      string,
      string,
      string,
      string[],
      string,
    ];
    expect(tenant).toBe(TENANT);
    expect(key).not.toContain(REQUEST);
    expect(key.replace('request:', '')).toBe(again);
    expect(array).toEqual([again, 'x']);
    expect(tagged).toBe('run-a.3-7');
    // The next replay: new ids again.
    expect(freshBindings([REQUEST], keep, new Map())[0]).not.toBe(again);
  });

  it("takes the statements of the transactions that touch a table, and a table's statements outside any", () => {
    const statements: RecordedStatement[] = [
      { sql: 'select * from "sessions" where id = $1', bindings: [] },
      { sql: 'BEGIN;', bindings: [], txId: 't1' },
      { sql: 'select set_config($1, $2, true)', bindings: [], txId: 't1' },
      { sql: 'select * from "assets" where tenant_id = $1', bindings: [TENANT], txId: 't1' },
      { sql: 'COMMIT;', bindings: [], txId: 't1' },
      { sql: 'update rate_limits set n = n + 1', bindings: [], txId: 't2' },
      { sql: 'select count(*) from assets', bindings: [] },
    ];
    expect(statementsTouching(statements, 'assets').map((s) => s.sql)).toEqual([
      'BEGIN;',
      'select set_config($1, $2, true)',
      'select * from "assets" where tenant_id = $1',
      'COMMIT;',
      'select count(*) from assets',
    ]);
    expect(uuidsIn(statements)).toEqual([TENANT]);
  });
});
