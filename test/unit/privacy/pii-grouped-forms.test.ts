// The written forms that group a value the way people read it out (identifiers and cards in groups,
// phones between slashes, dotted local parts before spelled words), and the rule that an
// identifier's label decides which kind's check may claim the value. Each form is found, and its
// look-alikes (failing checks, dates, part numbers) are kept.
import { detects, found } from '../../support/pii-cases';

describe('identifiers grouped as they are read out', () => {
  detects(
    'id_number',
    [
      ['a DNI grouped by spaces', 'DNI de Marta para el curso: 12 345 678 Z (dictado)', '12 345 678 Z'],
      ['a DNI grouped by spaces, no label', 'Marta Gil, 12 345 678 Z', '12 345 678 Z'],
      ['a codice fiscale in its four groups', 'Codice fiscale: TCN MRN 70B01 F839E.', 'TCN MRN 70B01 F839E'],
      ['a NIR with its key apart', 'n° SS 1870124524061 32', '1870124524061 32'],
      ['a CPF with its check digits hyphenated', 'CPF 529982247-25', '529982247-25'],
      ['a CPF grouped by spaces', 'o CPF é 529 982 247 25, confere', '529 982 247 25'],
    ],
    [
      ['a DNI in groups with a wrong check letter', 'DNI 12 345 678 A'],
      ['a thousands-grouped figure before a word', 'tenemos 12 345 678 y subiendo'],
      ['a codice fiscale in groups with a wrong check letter', 'Codice fiscale: TCN MRN 70B01 F839F'],
      ['a NIR with a wrong key apart', 'n° SS 1870124524061 33'],
      ['a CPF with a wrong check digit hyphenated', 'CPF 529982247-26'],
    ],
  );
});

describe("an identifier's label decides which kind's check may claim the value", () => {
  detects(
    'id_number',
    [],
    [
      // 212345011 passes the BSN's eleven-test, not the Portuguese NIF's check.
      ['a NIF whose check fails, though a BSN check passes', 'NIF 212345011 (o dígito de controlo não bate)'],
      // 123456002 passes the NIF's check, not the eleven-test.
      ['a BSN whose eleven-test fails, though a NIF check passes', 'BSN op het formulier (123456002) klopt niet'],
    ],
  );

  it('still takes the value when the named kind passes, and a label after a value names that value', () => {
    expect(found('NIF 123456002')).toEqual([['id_number', '123456002']]);
    expect(found('mijn BSN is 212345011')).toEqual([['id_number', '212345011']]);
    expect(found('para Z0456789Z (NIE) y 16543210T (DNI)')).toEqual([
      ['id_number', 'Z0456789Z'],
      ['id_number', '16543210T'],
    ]);
  });

  it('never reads an Aadhaar-shaped 4-4-4 group as a phone number, failing its check or not', () => {
    expect(found('The number on his old form, 2913 3444 4744, fails the check.')).toEqual([]);
    expect(found('Aadhaar 2913 3444 4744')).toEqual([]);
    expect(found('call me, number 2913 3444 4743')).toEqual([['id_number', '2913 3444 4743']]);
  });
});

describe('cards of 14 to 19 digits grouped by four with a short last group', () => {
  detects('credit_card', [
    ['17 digits, 4-4-4-4-1 (UnionPay)', 'UnionPay: 6212 3456 7890 1234 7.', '6212 3456 7890 1234 7'],
    ['13 digits, 4-4-4-1 (Visa)', 'old Visa 4222 2222 2222 2 expired', '4222 2222 2222 2'],
    ['15 digits, 4-4-4-3 (Amex)', 'Amex 3782 8224 6310 005', '3782 8224 6310 005'],
  ]);

  it('keeps a 17-digit serial in groups of four that fails Luhn', () => {
    expect(found('S/N 6212 3456 7890 1234 8 on the label')).toEqual([]);
    expect(found('lote 6212 3456 7890 1234 8')).toEqual([]);
  });
});

describe('phones grouped by slashes', () => {
  detects(
    'phone',
    [
      ['a Spanish mobile, no phone word', 'el personal 655/123/456 y el del trabajo', '655/123/456'],
      ['a French mobile in pairs', 'Luc: 06/12/34/56/78', '06/12/34/56/78'],
      ['a German area code with one slash (as before)', 'Büro 030/12345678', '030/12345678'],
    ],
    [
      ['a slashed date', 'entrega el 12/05/2026 sin falta'],
      ['a part number of two groups', 'pieza 622/118 en stock'],
      ['a slashed number after a thing label', 'Ref. 655/123/456'],
      ['a document number led by a year', 'expediente nº 2026/1123/07'],
      ['slashed groups no plan has', 'ratio 100/200/300 en la mezcla'],
    ],
  );
});

describe('spelled e-mail addresses whose local part has real dots', () => {
  detects('email', [
    ['Spanish words', 'mi nuevo mail es jose.m.ruiz arroba empresa punto es que el otro no lo miro', 'jose.m.ruiz arroba empresa punto es'],
    ['Portuguese words', 'enviar para ana.costa arroba bosch ponto pt até sexta', 'ana.costa arroba bosch ponto pt'],
    ['English words, a dot spelled too', 'write to carla.b dot ward at acme dot co dot uk', 'carla.b dot ward at acme dot co dot uk'],
  ]);

  it('keeps prose with dotted words and spelled dots that end in no TLD', () => {
    expect(found('version 2.1 at the dot matrix printer')).toEqual([]);
    expect(found('see file.txt at punto 3 del acta')).toEqual([]);
  });
});

describe('a Steuer-ID in 2-3-3-3 by dots or hyphens', () => {
  detects(
    'id_number',
    [
      ['dotted, no label', 'Herr Lang hat 86.095.742.719 angegeben.', '86.095.742.719'],
      ['hyphenated, no label', 'Frau Ott: 86-095-742-719, bitte eintragen', '86-095-742-719'],
    ],
    [
      ['dotted with a wrong check digit', 'Herr Lang hat 86.095.742.718 angegeben.'],
      ['a dotted quantity failing the repetition rule', 'Umsatz 12.345.678.901 Stück'],
      ['separators of two kinds', 'Code 86.095-742.719 am Tor'],
    ],
  );
});

describe('a phone number split anywhere by a scan, after a phone word', () => {
  detects(
    'phone',
    [
      ['single digits after an area code', 'Tel 0221 4 7 8 12 34\nLager', '0221 4 7 8 12 34'],
      ['a mobile split in odd groups', 'Telefone: 21 3 4 5 6 7 8 9', '21 3 4 5 6 7 8 9'],
    ],
    [
      ['the same split without a phone word', 'Ref 0221 4 7 8 12 34\nLager'],
      ['a split run no plan has, after a phone word', 'Tel 0000 1 2 3 4 5 6'],
    ],
    'type',
  );
});

describe('"ät" for the "at" of a spelled address', () => {
  detects('email', [['German, with Punkt', 'Ansprechpartner: j.weber ät pumpen-nord punkt de', 'j.weber ät pumpen-nord punkt de']]);

  it('keeps prose with "ät" and no spelled domain', () => {
    expect(found('Treffen ät Punkt 8 Uhr im Werk')).toEqual([]);
  });
});

describe('an address spaced by OCR around its "@" and before a dot', () => {
  detects('email', [
    ['a space before the TLD dot', 'Kontakt: einkauf @ walzwerk-ost .de\nTel', 'einkauf @ walzwerk-ost .de'],
    ['spaces around every dot of the domain', 'Mail: info @ tecnica-sur . com . mx', 'info @ tecnica-sur . com . mx'],
    ['spaces around the dot of the local part too', 'Von: jana . kraus @ foerdertechnik . de', 'jana . kraus @ foerdertechnik . de'],
  ]);

  it('keeps a spaced "@" before a sentence end, and a spaced dot without a spaced "@"', () => {
    expect(found('see you @ home. Best regards')).toEqual([]);
    expect(found('ask the team@ home .de sites')).toEqual([]);
  });
});
