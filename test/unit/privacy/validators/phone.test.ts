// Examples: the numbers regulators publish for documentation (Ofcom's 020 7946 0xxx, the NANP's
// 555-01xx; Ofcom's 07700 900xxx drama range is refused: it is never assigned), libphonenumber's
// own example number per region (libphonenumber-js/examples.mobile.json), and the written forms
// the PII bench corpus uses.
import examples from 'libphonenumber-js/examples.mobile.json';
import { PhoneNumber } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/metadata.max.json';
import { MAX_PHONE_TEXT, isNationalNumberOf, isPossibleInternational, isValidPhone, normalizeWrittenPhone, readPhone } from '../../../../domain/privacy/validators/phone';

describe('readPhone', () => {
  it.each([
    ['+44 20 7946 0958', '+442079460958', 'GB'],
    ['+44 (0)20 7946 0958', '+442079460958', 'GB'],
    ['0044 7400 123456', '+447400123456', 'GB'],
    ['+1 (415) 555-0132', '+14155550132', 'US'],
    ['+49 231 4425039', '+492314425039', 'DE'],
    ['+33\u202f6\u202f12\u202f34\u202f56\u202f78', '+33612345678', 'FR'],
    ['+33.6.12.34.56.78', '+33612345678', 'FR'],
    ['\u202a+34 612 34 56 78\u202c', '+34612345678', 'ES'],
    ['tel:+351912345678', '+351912345678', 'PT'],
    ['+55 (11) 91234-5678', '+5511912345678', 'BR'],
  ])('reads %s as %s', (written, e164, country) => {
    expect(readPhone(written)).toMatchObject({ e164, country, valid: true });
  });

  it.each([
    ['(0231) 4 42 50 39', 'DE', '+492314425039'],
    ['0231/4425039', 'DE', '+492314425039'],
    ['06.12.34.56.78', 'FR', '+33612345678'],
    ['06-12345678', 'NL', '+31612345678'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['612 345 678', 'ES', '+34612345678'],
    ['(11) 91234-5678', 'BR', '+5511912345678'],
  ])('reads the national form %s with the default country %s', (written, defaultCountry, e164) => {
    expect(readPhone(written, { defaultCountry: defaultCountry as 'DE' })).toMatchObject({ e164, valid: true });
  });

  it('keeps an extension apart', () => {
    expect(readPhone('+1 415 555 0132 ext. 204')).toMatchObject({ e164: '+14155550132', extension: '204' });
  });

  it('needs a country for a national number', () => {
    expect(readPhone('0231 4425039')).toBeNull();
  });

  it.each([
    ["Ofcom's drama range, never assigned", '+44 7700 900461'],
    ['a NANP exchange that starts with 0', '+1 415 055 0132'],
    ['too short for Spain', '+34 612 345'],
    ['a Spanish number with a digit too many', '+34 612 345 6789'],
    ['a German number too short for its range', '+49 1234 567'],
  ])('finds %s invalid', (_why, written) => {
    expect(isValidPhone(written)).toBe(false);
  });

  it("accepts libphonenumber's example mobile number of every region", () => {
    const wrong = Object.entries(examples as Record<string, string>).filter(([country, national]) => !isValidPhone(national, { defaultCountry: country as 'DE' }));
    expect(wrong).toEqual([]);
  });

  it('refuses input longer than any written number before reading it', () => {
    expect(readPhone(`+44 20 7946 0958${' '.repeat(MAX_PHONE_TEXT)}`)).toBeNull();
  });

  it('normalises the marks and spaces apps and typography put in', () => {
    expect(normalizeWrittenPhone('\u202a0034\u00a0612\u202f345\u2009678\u202c')).toBe('+34 612 345 678');
  });
});

/** libphonenumber-js's PhoneNumber as its parser calls it (country, national number, metadata); the public type declares the E.164 form only. */
const ForCountry = PhoneNumber as unknown as new (country: string, national: string, json: typeof metadata) => PhoneNumber;

describe('the detectors’ checks', () => {
  const countries = ['ES', 'PT', 'IT', 'FR', 'BE', 'NL', 'DE', 'AT', 'CH', 'GB', 'IE', 'US', 'CA', 'MX', 'BR', 'IN'] as const;

  it.each([
    ['612345678', 'ES', true],
    ['0612345678', 'FR', true],
    ['612345678', 'FR', false], // France writes its trunk 0
    ['0231 4425039'.replace(' ', ''), 'DE', true],
    ['11912345678', 'BR', true],
    ['011912345678', 'BR', true], // Brazil's trunk 0, which its national format leaves out
    ['3125550100', 'US', true],
    ['13125550100', 'US', true], // the NANP's 1
    ['121469090', 'ES', false],
  ])('reads %s written in %s as assigned: %s', (digits, country, assigned) => {
    expect(isNationalNumberOf(digits, [country as 'ES'])).toBe(assigned);
  });

  it('answers as libphonenumber’s isValid on random numbers of every length each plan has', () => {
    // A small LCG: the same numbers on every run.
    let state = 57;
    const digit = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) >> 16) % 10;
    const disagree: string[] = [];
    for (const country of countries) {
      for (let i = 0; i < 400; i++) {
        const national = `${2 + (digit() % 8)}${Array.from({ length: 7 + (i % 4) }, digit).join('')}`;
        // Valid in this country's own plan (a +1 number may be Canada's, Puerto Rico's...): the
        // library's PhoneNumber built for the country, as its parser builds it.
        const library = new ForCountry(country, national, metadata).isValid();
        const trunk = country === 'ES' || country === 'PT' || country === 'IT' || country === 'MX' || country === 'BR' || country === 'US' || country === 'CA' ? '' : '0';
        const ours = isNationalNumberOf(trunk + national, [country]);
        if (library !== ours) disagree.push(`${country} ${national}: library ${library}, ours ${ours}`);
      }
    }
    expect(disagree).toEqual([]);
  });

  it.each([
    ['447700900123', true], // Ofcom's drama range: possible, not assigned
    ['15128367617', true],
    ['3461234', false],
    ['0034612345678', false],
  ])('reads +%s as a possible number: %s', (digits, possible) => {
    expect(isPossibleInternational(digits)).toBe(possible);
  });
});
