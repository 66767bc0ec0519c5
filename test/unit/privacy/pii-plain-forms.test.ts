// Forms people write that carry no marks beyond the digits: international numbers after a
// country's initials, groups joined by double spaces (scans, aligned columns), a double space
// before the extension, ten-digit mobiles in two groups, compact national numbers in CSV cells
// whose header names an identifier. Each value is found; the look-alikes of the same shape are kept.
import { detects } from '../../support/pii-cases';

describe('plain phone numbers', () => {
  detects(
    'phone',
    [
      ["an international number after a country's initials", 'DE +49 30 9018 2214 · office', '+49 30 9018 2214'],
      ['a US number after US', 'US +1 415 867 5309 (desk)', '+1 415 867 5309'],
      ['groups joined by double spaces', 'Contact tel: 0161  496  0734', '0161  496  0734'],
      ['a double space before the extension', 'office +1 (312) 555-0147  ext. 12 today', '+1 (312) 555-0147  ext. 12'],
      ['an Indian mobile in two groups of five', 'Ravi, 91234 56780, thanks', '91234 56780'],
      ['an Italian mobile as 3 + 7', 'richiamami al 338 2741956, grazie', '338 2741956'],
      ['a compact French number in a CSV row with a NIR column', 'nom;nir;tel\nDURAND Eva;177081305520120x;0612345678\n', '0612345678'],
      ['a compact Dutch number in a CSV row with a bsn column', 'id,naam,bsn,telefoon\n7,Jansen,12345678x,0201234567\n', '0201234567'],
    ],
    [
      ['a two-group code of ten digits led by four', 'artikel 2026 123456 geleverd'],
      ['a decimal in two groups', 'saldo 12345.67890'],
      ['a quantity column after a phone-shaped group', 'Zählerstand  0098  765  kWh'],
      ['a labelled id of nine digits with a failing check', 'BSN van Jansen: 123456789 (elfproef faalt)'],
      ['a letter-spaced card number, never two phone numbers', 'CARD (scan)\n6 0 1 1  0 0 0 9  9 0 1 3  9 4 2 4\nVALID THRU'],
    ],
    'type',
  );
});

describe('labels of numbers that are not a person’s', () => {
  detects(
    'id_number',
    [['a Steuer-ID after its hyphenated label, no-break spaced', 'Steuer-Identifikationsnummer: 86\u00a0095\u00a0742\u00a0719', '86\u00a0095\u00a0742\u00a0719']],
    [
      ['an Italian VAT number (a company’s), CPF check passing', 'P.IVA 52998224725'],
      ['a partita IVA', 'Partita IVA: 52998224725'],
      ['a tracking number in Aadhaar layout', 'Tracking 2341 2341 2346'],
      ['a shipment guide in Aadhaar layout', 'Guía de envío 2341 2341 2346'],
      ['a Sendung in Aadhaar layout', 'Sendung 2341 2341 2346 zugestellt'],
    ],
    'type',
  );
  detects(
    'phone',
    [],
    [
      ['a counter reading after "at"', 'Fuel counter at 0049 301 234 5'],
      ['a company registration number', 'Company reg. 06123456'],
      ['a registration number with a trunk-0 shape', 'Registration: 0161 496 0734'],
    ],
    'type',
  );
});

describe('Mir cards', () => {
  detects(
    'credit_card',
    [['a Mir card in groups of four', 'Karte 2201 3820 0000 0005 bitte', '2201 3820 0000 0005']],
    [['a 2205 number passing Luhn', 'Karte 2205 0000 0000 0009']],
    'type',
  );
});

describe('values letter-spaced by OCR', () => {
  detects(
    'id_number',
    [
      ['a NIE, its letters checked', 'NIE (escaneado): X 1 2 3 4 5 6 7 L\nfirma', 'X 1 2 3 4 5 6 7 L'],
      ['a codice fiscale', 'C.F. R S S M R A 8 5 T 1 0 A 5 6 2 S', 'R S S M R A 8 5 T 1 0 A 5 6 2 S'],
      ['a BSN after its label', 'BSN: 1 1 1 2 2 2 3 3 3', '1 1 1 2 2 2 3 3 3'],
      ['a Steuer-ID after a generic Identifikationsnummer', 'Identifikationsnummer: 8 6 0 9 5 7 4 2 7 1 9', '8 6 0 9 5 7 4 2 7 1 9'],
    ],
    [
      ['nine spaced digits passing the BSN check without a label', 'Stand 1 1 1 2 2 2 3 3 3 ok'],
      ['a NIE-shaped spaced run with a wrong letter', 'X 1 2 3 4 5 6 7 M'],
    ],
    'type',
  );
  detects(
    'credit_card',
    [['a card spaced digit by digit, groups of four apart', 'CARD (scan)\n6 0 1 1  0 0 0 9  9 0 1 3  9 4 2 4\nVALID THRU', '6 0 1 1  0 0 0 9  9 0 1 3  9 4 2 4']],
    [
      ['a spaced card failing Luhn', 'CARD 6 0 1 1  0 0 0 9  9 0 1 3  9 4 2 5'],
      ['a spaced Luhn-valid run of no issuer', 'S/N 1 0 0 0  0 0 0 0  0 0 0 0  0 0 0 8'],
    ],
    'type',
  );
});
