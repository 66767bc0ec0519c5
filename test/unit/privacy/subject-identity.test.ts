import { parseSubjectIdentity, toE164 } from '../../../domain/privacy/subject-identity';

describe('subject identity', () => {
  it('normalises international phone numbers to E.164 and refuses national or malformed ones', () => {
    expect(toE164('+34 600-111-222')).toBe('+34600111222');
    expect(toE164('0034 (600) 111.222')).toBe('+34600111222');
    expect(toE164('600111222')).toBeNull();
    expect(toE164('+034600111222')).toBeNull();
    expect(toE164('+1234567')).toBeNull();
    expect(toE164('+1234567890123456')).toBeNull();
  });

  it('tells ids, e-mail addresses (lowercased) and phones apart', () => {
    expect(parseSubjectIdentity('6F1C2D3E-0000-4000-8000-000000000001')).toEqual({ kind: 'id', id: '6f1c2d3e-0000-4000-8000-000000000001' });
    expect(parseSubjectIdentity(' Ana.Perez@Example.ORG ')).toEqual({ kind: 'email', email: 'ana.perez@example.org' });
    expect(parseSubjectIdentity('+49 151 2345 6789')).toEqual({ kind: 'phone', e164: '+4915123456789' });
    expect(parseSubjectIdentity('not-a-uuid')).toBeNull();
    expect(parseSubjectIdentity('ana@')).toBeNull();
  });
});
