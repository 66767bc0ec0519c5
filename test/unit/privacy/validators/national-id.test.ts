// Published examples: the doctests of python-stdnum 2.2 (arthurdejong.org/python-stdnum) and, for the
// UK NINO that python-stdnum lacks, the specs of stdnum-js, unless a line says otherwise. Each
// invalid example breaks one rule.
import { validate as stdnumSteuerId } from 'stdnum/lib/cjs/de/idnr';
import {
  MAX_NATIONAL_ID_TEXT,
  NATIONAL_ID_KINDS,
  type NationalIdKind,
  compactNationalId,
  isValidNationalId,
  nationalIdKindsOf,
} from '../../../../domain/privacy/validators/national-id';

const EXAMPLES: Record<NationalIdKind, { valid: string[]; invalid: Array<[why: string, value: string]> }> = {
  br_cpf: {
    valid: ['390.533.447-05', '39053344705'],
    invalid: [
      ['check digits', '231.002.999-00'],
      ['length', '660-3'],
    ],
  },
  de_steuer_id: {
    valid: ['36 574 261 809', '36574261809'],
    invalid: [
      ['check digit', '36574261808'],
      ['length', '12345678'],
      ['leading zero', '06574261809'],
      ['more than one digit repeated', '36554266806'],
    ],
  },
  es_dni: {
    valid: ['54362315-K', '54362315K'],
    invalid: [
      ['check letter', '54362315Z'],
      ['length', '54362315'],
    ],
  },
  es_nie: {
    valid: ['x-2482300w', 'X-2482300-W', 'X2482300W'],
    invalid: [
      ['check letter', 'x-2482300a'],
      ['length', 'X2482300'],
    ],
  },
  fr_nir: {
    valid: ['2 95 10 99 126 111 93', '295109912611193', '253072B07300470', '253072A07300443'],
    invalid: [
      ['check key', '295109912611199'],
      ['Corsica department', '253072C07300443'],
      ['length', '12345678'],
    ],
  },
  in_aadhaar: {
    valid: ['234123412346', '2341 2341 2346', '2341-2341-2346'],
    invalid: [
      ['Verhoeff check digit', '234123412347'],
      ['leading 1', '123412341234'],
      ['palindrome', '222222222222'],
    ],
  },
  it_codice_fiscale: {
    valid: ['RCCMNL83S18D969H', 'rccmnl83s18d969h'],
    invalid: [
      ['check letter', 'RCCMNL83S18D967H'],
      ['length', 'RCCMNL83S18D969'],
      ['company form (11 digits), not a person', '00743110157'],
    ],
  },
  mx_curp: {
    valid: ['BOXW310820HNERXN09'],
    invalid: [
      ['check digit', 'BOXW310820HNERXN08'],
      ['state', 'BOXW310820HZZRXN09'],
    ],
  },
  nl_bsn: {
    valid: ['1112.22.333', '111222333', '123456782'],
    invalid: [
      ['eleven-test', '1112.52.333'],
      ['eight digits (stored form, not written)', '40645678'],
    ],
  },
  pt_nif: {
    // 123456789: the example of the OECD's Portugal TIN sheet; 501964843 is a company (NIPC).
    valid: ['123456789', '123 456 789'],
    invalid: [
      ['check digit', '123456780'],
      ['a company, not a person', '501964843'],
    ],
  },
  uk_nino: {
    valid: ['HH012345D', 'hh 01 23 45 d', 'TJ012345D'],
    invalid: [
      ['suffix', 'HH012345E'],
      ['O as second letter', 'TO012345D'],
      ['suffix left out', 'HH012345'],
      ['prefix never issued (GB)', 'GB012345A'],
    ],
  },
  us_ssn: {
    valid: ['536-90-4399', '536904399'],
    invalid: [
      ['area 9xx', '989-09-2294'],
      ['area 666', '666-10-0000'],
      ['advertised (Woolworth wallet card)', '078-05-1120'],
      ['length', '1234567890123'],
    ],
  },
};

describe('national id validators', () => {
  it('cover every kind with examples', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...NATIONAL_ID_KINDS].sort());
  });

  describe.each(NATIONAL_ID_KINDS)('%s', (kind) => {
    it.each(EXAMPLES[kind].valid)('accepts %s', (value) => {
      expect(isValidNationalId(kind, value)).toBe(true);
    });
    it.each(EXAMPLES[kind].invalid)('refuses a wrong %s: %s', (_why, value) => {
      expect(isValidNationalId(kind, value)).toBe(false);
    });
  });

  describe('Steuer-ID repetition rule (stdnum gets it wrong)', () => {
    /** The ten leading digits with the check digit that stdnum accepts, whatever the repetition. */
    const withStdnumCheckDigit = (ten: string) => {
      const found = [...'0123456789'].map((d) => ten + d).find((v) => stdnumSteuerId(v).isValid);
      if (!found) throw new Error(`no check digit for ${ten}`);
      return found;
    };
    it.each([
      ['ten distinct digits', '1234567890'],
      ['one digit four times', '1213141567'],
      ['a digit three times in a row', '1112345678'],
    ])('refuses %s though stdnum accepts it', (_why, ten) => {
      const value = withStdnumCheckDigit(ten);
      expect(stdnumSteuerId(value).isValid).toBe(true);
      expect(isValidNationalId('de_steuer_id', value)).toBe(false);
    });
    it('accepts a digit three times when not in a row', () => {
      const value = withStdnumCheckDigit('1213145678');
      expect(isValidNationalId('de_steuer_id', value)).toBe(true);
    });
  });

  it('compacts the separators people write, narrow and no-break spaces included', () => {
    expect(compactNationalId('2\u202f95\u00a010 99/126.111-93')).toBe('295109912611193');
    expect(isValidNationalId('fr_nir', '2\u202f95\u202f10\u202f99\u202f126\u202f111\u202f93')).toBe(true);
  });

  it('refuses input longer than any written form before reading it', () => {
    expect(isValidNationalId('fr_nir', `2 95 10 99 126 111 93${' '.repeat(MAX_NATIONAL_ID_TEXT)}`)).toBe(false);
  });

  it('names every kind a value is valid for', () => {
    expect(nationalIdKindsOf('111222333')).toContain('nl_bsn');
    expect(nationalIdKindsOf('RCCMNL83S18D969H')).toEqual(['it_codice_fiscale']);
    expect(nationalIdKindsOf('hello')).toEqual([]);
  });
});
