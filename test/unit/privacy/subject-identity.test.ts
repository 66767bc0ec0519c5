import { isNationalPhoneText, isPhoneCountry, parseSubjectIdentity, toE164 } from '../../../domain/privacy/subject-identity';
import { readPhone } from '../../../domain/privacy/validators/phone';

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

  it("reads a national number with the default country's numbering plan, and only a valid one", () => {
    // The Dutch trunk 0 goes; the Italian leading 0 is part of the number and stays; Spain has no trunk prefix.
    expect(toE164('0612 345 678', 'NL')).toBe('+31612345678');
    expect(toE164('(0231) 4 42 50 39', 'DE')).toBe('+492314425039');
    expect(toE164('06 6982 1234', 'IT')).toBe('+390669821234');
    expect(toE164('600 111 222', 'ES')).toBe('+34600111222');
    // International numbers ignore the default country.
    expect(toE164('+34 600 111 222', 'NL')).toBe('+34600111222');
    // Not a valid number of that country, letters, or no country: nobody.
    expect(toE164('0012 34', 'NL')).toBeNull();
    expect(toE164('0612 345 678 999', 'NL')).toBeNull();
    expect(toE164('06-CALL-ME', 'NL')).toBeNull();
    expect(toE164('0612 345 678')).toBeNull();
    expect(parseSubjectIdentity('0612 345 678', 'NL')).toEqual({ kind: 'phone', e164: '+31612345678' });
  });

  it('reads national numbers by the same plans as the PII detectors, current ones', () => {
    expect(toE164('01 95 12 34 56', 'BJ')).toBe('+2290195123456');
    expect(toE164('01 95 12 34 56', 'BJ')).toBe(readPhone('01 95 12 34 56', { defaultCountry: 'BJ' })?.e164);
    // Benin's eight-digit plan, which it left in 2024 (google-libphonenumber 3.2.47 still read it).
    expect(toE164('85 75 12 34', 'BJ')).toBeNull();
    expect(readPhone('85 75 12 34', { defaultCountry: 'BJ' })?.valid).toBe(false);
  });

  it('tells national phone text from other strings, and knows the countries with a numbering plan', () => {
    expect(isNationalPhoneText('0612 345 678')).toBe(true);
    expect(isNationalPhoneText('+31 612 345 678')).toBe(false);
    expect(isNationalPhoneText('not-a-uuid')).toBe(false);
    expect(isNationalPhoneText(' - ')).toBe(false);
    expect([isPhoneCountry('NL'), isPhoneCountry('BR'), isPhoneCountry('XX'), isPhoneCountry('nl')]).toEqual([true, true, false, false]);
  });
});
