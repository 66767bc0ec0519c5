import { toAppError } from '../../../api/middleware/errors';

describe('toAppError', () => {
  it('maps a PostgreSQL unique violation (a lost create race) to 409 CONFLICT naming the constraint, not the values', () => {
    const err = Object.assign(new Error('duplicate key value violates unique constraint "tools_tenant_id_name_unique"'), {
      code: '23505',
      constraint: 'tools_tenant_id_name_unique',
      detail: 'Key (tenant_id, name)=(…, secret-name) already exists.',
    });
    const mapped = toAppError(err);
    expect(mapped.status).toBe(409);
    expect(mapped.code).toBe('CONFLICT');
    expect(mapped.message).toBe('conflicts with an existing record (tools_tenant_id_name_unique)');
    expect(mapped.message).not.toContain('secret-name');
  });

  it('keeps other database errors internal (500)', () => {
    const mapped = toAppError(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
    expect([mapped.status, mapped.code]).toEqual([500, 'INTERNAL_ERROR']);
  });

  it('names the refused "__proto__" key instead of calling well-formed JSON invalid', () => {
    const parseFailure = (message: string) => Object.assign(new SyntaxError(message), { status: 400, type: 'entity.parse.failed' });
    expect(toAppError(parseFailure('Object contains forbidden prototype property')).message).toBe('request body has a "__proto__" key, which is refused');
    expect(toAppError(parseFailure('Unexpected token } in JSON at position 9')).message).toBe('request body is not valid JSON');
  });
});
