import { readFileSync } from 'fs';
import path from 'path';
import { type IdFormat, type PiiType, DEFAULT_ID_FORMATS, PII_TYPES, AUTO_REDACT_TYPES, detectPii, passesLuhn, redactPii } from '../../../domain/privacy/pii';
import { evaluatePii, formatPiiReport, goldSpans, parseLabelledJsonl } from '../../../domain/privacy/pii-eval';

/** The values of one type found in the text, in order. */
function found(text: string, type: PiiType): string[] {
  return detectPii(text)
    .filter((f) => f.type === type)
    .map((f) => text.slice(f.start, f.end));
}

/** A type's corpus: each `finds` text holds exactly its one value of the type, each `ignores` text none. */
function detects(type: PiiType, cases: { finds: Array<[label: string, text: string, value: string]>; ignores: Array<[label: string, text: string]> }): void {
  it.each(cases.finds)('finds %s', (_case, text, value) => {
    expect(found(text, type)).toEqual([value]);
  });
  it.each(cases.ignores)('ignores %s', (_case, text) => {
    expect(found(text, type)).toEqual([]);
  });
}

describe('redactPii', () => {
  it('replaces only the values and keeps the surrounding text', () => {
    const result = redactPii('Call Ana on +34 612 345 678 or write to ana.ruiz@acme.es before 10:30.');
    expect(result.text).toBe('Call Ana on [redacted:phone] or write to [redacted:email] before 10:30.');
    expect(result.findings).toEqual([
      { type: 'phone', start: 12, end: 27 },
      { type: 'email', start: 40, end: 56 },
    ]);
  });

  it('returns the text unchanged when nothing is found', () => {
    const text = 'Bearing SKF-6205-2RS replaced on 2026-11-23 at 14:05, vibration 4.5 mm/s.';
    expect(redactPii(text)).toEqual({ text, findings: [] });
  });

  it('covers all four categories by default, and stored text is redacted for all four of SPEC.md', () => {
    expect([...PII_TYPES].sort()).toEqual(['credit_card', 'email', 'id_number', 'phone']);
    expect([...AUTO_REDACT_TYPES].sort()).toEqual(['credit_card', 'email', 'id_number', 'phone']);
    const text = 'x@acme.es 612 345 678 DNI 12345678Z card 4111 1111 1111 1111';
    expect(redactPii(text).text).toBe('[redacted:email] [redacted:phone] DNI [redacted:id_number] card [redacted:credit_card]');
  });

  it('replaces only the categories asked for', () => {
    const text = 'x@acme.es 612 345 678 DNI 12345678Z card 4111 1111 1111 1111';
    expect(redactPii(text, { types: ['email', 'phone'] }).text).toBe('[redacted:email] [redacted:phone] DNI 12345678Z card 4111 1111 1111 1111');
  });

  it('classifies before filtering: an SSN is not redacted as a phone when only phones are asked for', () => {
    expect(redactPii('SSN 219-09-9999', { types: ['phone'] }).text).toBe('SSN 219-09-9999');
    expect(redactPii('SSN 219-09-9999').text).toBe('SSN [redacted:id_number]');
  });

  it('resolves overlaps by precedence: e-mail over phone, card over phone', () => {
    expect(detectPii('612345678@acme.es')).toEqual([{ type: 'email', start: 0, end: 17 }]);
    // Luhn-valid and a known issuer: a card, never also a phone.
    expect(detectPii('tel 4111111111111111')).toEqual([{ type: 'credit_card', start: 4, end: 20 }]);
  });
});

describe('email', () => {
  detects('email', {
    finds: [
      ['dots and plus tags', 'Reply to maria.lopez+maintenance@acme-industrial.com today', 'maria.lopez+maintenance@acme-industrial.com'],
      ['subdomains and second-level TLDs', 'cc j.smith@mail.plant.example.co.uk;', 'j.smith@mail.plant.example.co.uk'],
      ['angle brackets', 'From: Juan Pérez <juan.perez@acme.es>', 'juan.perez@acme.es'],
      ['sentence-final dot excluded', 'Email ANA.RIOS@ACME.ES.', 'ANA.RIOS@ACME.ES'],
      ['IDN domain and TLD', 'Контакт: сервис@завод.рф, тел.', 'сервис@завод.рф'],
      ['accented domain', 'service@müller-technik.de oder', 'service@müller-technik.de'],
      ['punycode', 'support@xn--mller-technik-2ob.de', 'support@xn--mller-technik-2ob.de'],
      ['inner apostrophe', "liam.o'connor@minesite.com.au |", "liam.o'connor@minesite.com.au"],
      ['mailto with query', 'mailto:calidad@acme.es?subject=Lote', 'calidad@acme.es'],
      ['bracketed [at] [dot]', 'juan [at] acme-industrial [dot] es que', 'juan [at] acme-industrial [dot] es'],
      ['(at) with plain dots', 'contact: k.tanaka(at)fa-robotics.co.jp for', 'k.tanaka(at)fa-robotics.co.jp'],
      ['<at> and <dot>', 'escribe a giuliab <AT> libero <DOT> it ya', 'giuliab <AT> libero <DOT> it'],
      ['plain words', 'write to diego dot ruiz at predictivo dot net', 'diego dot ruiz at predictivo dot net'],
      ['plain words in Portuguese', 'manda para mariana ponto costa arroba hotmail ponto com por favor', 'mariana ponto costa arroba hotmail ponto com'],
      ['plain words after another "at"', 'email me at maria dot lopez at acme dot com', 'maria dot lopez at acme dot com'],
      ['spaces around the @', 'mail thomasb @ ruhr-pumpen.de bitte', 'thomasb @ ruhr-pumpen.de'],
      ['wrapped before the @', 'reply to aisha.reid+alerts\n@outlook.com thanks', 'aisha.reid+alerts\n@outlook.com'],
      ['wrapped after a dot of the domain', 'mail r.deboer@vandijk-techniek.\nnl graag', 'r.deboer@vandijk-techniek.\nnl'],
      ['wrapped after a hyphen, CRLF', 'a j.ruiz@rodamientos-\r\nlevante.es hoy', 'j.ruiz@rodamientos-\r\nlevante.es'],
      ['a complete address before a line break', 'write to ana@acme.com.\nThanks', 'ana@acme.com'],
      ['a second-level-only ccTLD', 'ventas@bombas.co.za gracias', 'ventas@bombas.co.za'],
    ],
    ignores: [
      ['retina asset names', 'use logo@2x.png and logo@3x.png'],
      ['hosts without a dot', 'mails from root@localhost by default'],
      ['version pins', 'npm i @acme/sdk@2.3.1 and lodash@4.17.21'],
      ['@mentions', 'thanks @sarah.whitfield and @tom'],
      ['git remotes', 'clone git@github.com:acme/edge-agent.git'],
      ['IP literals', 'login admin@192.168.1.1 failed'],
      ['MIME content ids', 'cid:image001.png@01DA1D2B.8C0E5A40'],
      ['code with @ (matrix products)', 'v = m.inv@acc.vec and grad = J.T@r.flat'],
      // The Public Suffix List's ICANN section, as DMARC alignment reads it: .za takes names at its second level only.
      ['a name no registry gives', 'cfg = pump@plant.za'],
      ['prose with at and dot', 'look at the dot matrix display; we arrived at site at 9 dot 30ish'],
      ['prose with Punkt and punto', 'wir treffen uns Punkt 7 Uhr am Tor, el punto de consigna está a 45'],
    ],
  });
});

describe('phone', () => {
  detects('phone', {
    finds: [
      ['E.164 with spaces', 'Tel +34 612 345 678.', '+34 612 345 678'],
      ['E.164 compact', 'to=+34612345678 status', '+34612345678'],
      ['NANP with area in parentheses and extension', 'Direct: +1 (415) 555-0132 ext. 204', '+1 (415) 555-0132 ext. 204'],
      ['00 international prefix', 'Tel. 0044 20 7946 0958 (London)', '0044 20 7946 0958'],
      ['trunk zero in parentheses', 'Tél. +44 (0)20 7946 0958', '+44 (0)20 7946 0958'],
      ['country code in parentheses', 'contacto (+34) 612 345 678, horario', '(+34) 612 345 678'],
      ['US local', 'Cell (415) 555-0132 |', '(415) 555-0132'],
      ['US local with x extension', 'Office 312-555-0100 x223', '312-555-0100 x223'],
      ['Spanish 3-2-2-2', 'mi móvil 612 34 56 78', '612 34 56 78'],
      ['Spanish bare mobile', 'mi numero nuevo es 655443322 guardalo', '655443322'],
      ['Spanish with dots', 'Begoña en el 688.123.456 para', '688.123.456'],
      ['Spanish extension word', 'Llama al 0034 963 87 41 20 extensión 214, es', '0034 963 87 41 20 extensión 214'],
      ['UK landline', 'Office: 020 7946 0958 Mobile', '020 7946 0958'],
      ['UK mobile', 'Mobile: 07700 900461', '07700 900461'],
      ['French pairs', 'Portable : 06 12 34 56 78', '06 12 34 56 78'],
      ['French with dots', 'contacter M. Dubois au 01.42.68.53.00', '01.42.68.53.00'],
      ['German with slash', 'unter 030/12345678 oder', '030/12345678'],
      ['German direct dial', 'Tel.: +49 (0)841 12345-678', '+49 (0)841 12345-678'],
      ['Brazil', '(11) 91234-5678 –', '(11) 91234-5678'],
      ['7-digit local after a phone word', 'Contractor Dan, phone 555-0148, arrives', '555-0148'],
      ['followed by a time', 'Llámame al 612345678 a las 14:30', '612345678'],
      ['digits dictated one by one', 'Whatsapp: 6 4 4 1 2 3 4 5 6 (dictado)', '6 4 4 1 2 3 4 5 6'],
      ['narrow no-break spaces', 'Tél. +351\u202f916\u202f562\u202f652 merci', '+351\u202f916\u202f562\u202f652'],
      ['an extension in parentheses', 'ligue 21 899 8625 (ramal 475) amanhã', '21 899 8625 (ramal 475)'],
      ['a Dutch extension', 'bel 0472 87 83 58 (toestel 480) graag', '0472 87 83 58 (toestel 480)'],
      ['an extension vouches for a bare number', 'Marcos 1170548101 (ext. 138)', '1170548101 (ext. 138)'],
      ['a slash between spaces', 'erreichbar unter 0231 / 4425039', '0231 / 4425039'],
      ['pairs from the right after an area code', 'Büro (0231) 4 42 50 39, danke', '(0231) 4 42 50 39'],
      ['a dotted German number', 'Jürgen 0176.78671468 abends', '0176.78671468'],
      ['a compact Brazilian mobile, no phone word', 'Camila, 31915711291', '31915711291'],
      ["India's national format", 'Raj - 070331 90525', '070331 90525'],
      ['a wa.me link', 'https://wa.me/351218998625 ok', '351218998625'],
    ],
    ignores: [
      ['ISO dates', 'due 2026-11-23, closed 2026-11-19'],
      ['day-first dates', 'visit on 23/11/2026 and 23.11.2026 and 23-11-2026'],
      ['times', 'from 10:30 to 14:05:33, stop 02:17'],
      ['ISO timestamps with offset', '2026-11-23T10:30:00+01:00 and 2026-11-23 10:15:43,201'],
      ['serials with letters', 'SN AB12 345 678 and SN-7B3F-2201-5567 and 0612-345-678A'],
      ['part numbers', 'bearing SKF-6205-2RS, kit 3349-111-000, model 4155550132-A'],
      ['labelled order numbers', 'Pedido 4500123456, Order No. 612345678, Ticket #612345678, Incidencia 0612345678'],
      ['document numbers opening with a year', 'certificate 2026-11-19-0042 and bon 2026-1123-07'],
      ['decimal sensor readings', 'flow 1234.5678 m3/h, setpoint 612.5 kPa'],
      ['IP addresses', 'PLC 192.168.10.25, modbus 10.0.0.1:502, subnet 172.16.254.0/24'],
      ['amounts', '1.250,00 €, € 612.345, USD 12,500.00, 3 480 €, 12 500 units'],
      ['thousands-grouped counts', 'total 1.234.567 and 12 345 678'],
      ['units', 'counter 712345678 ciclos and 612.345.678 counts'],
      ['coordinates', 'lat 40.416775, lon -3.703790 and 39.4699, -0.3763'],
      ['key=value payloads', 'seq=612345678 payload=712345678'],
      ['unix timestamps and EAN codes', 'ts 1732357800 EAN 8412345678905'],
      ['IBANs', 'IBAN ES91 2100 0418 4502 0005 1332'],
      ['Luhn-failing 16-digit numbers', 'ref 4532 0151 1283 0367'],
      ['short codes and emergency numbers', 'gate code 2580, call 112, ext. 2045'],
      ['leading-zero codes behind 00', 'my account number is 0012345678'],
      ['meeting ids', 'Zoom meeting ID 891 6623 1798, ID de reunión Zoom 289 872 924 421, Teams-ID 289 872 924 421'],
      ['a part number after a compound label', 'Teilenummer 121 469 090'],
      ['digit groups no numbering plan has', '121 469 090 arrived'],
      ['an NIE written spaced that fails its letter', 'anotado Z 0703091 N hoy'],
    ],
  });

  it("reads the digits of WhatsApp's vCard as the number they are", () => {
    expect(found('TEL;type=CELL;waid=4917678671468:+49 176 78671468', 'phone')).toEqual(['4917678671468', '+49 176 78671468']);
  });

  it('splits two numbers written back to back or around a slash', () => {
    expect(found('612345678 699123456', 'phone')).toEqual(['612345678', '699123456']);
    expect(found('Jordi, 93 728 81 00 / 608 55 44 33, jordi@abb.com', 'phone')).toEqual(['93 728 81 00', '608 55 44 33']);
  });
});

describe('id_number', () => {
  detects('id_number', {
    finds: [
      ['DNI', 'DNI 12345678Z', '12345678Z'],
      ['DNI with hyphen', '(DNI 71829304-M)', '71829304-M'],
      ['DNI dotted', 'DNI: 12.345.678-Z (copia)', '12.345.678-Z'],
      ['NIE', 'NIE X1234567L', 'X1234567L'],
      ['NIE with hyphens, lower case', 'nie x-1234567-l caduca', 'x-1234567-l'],
      ['SSN', 'SSN 123-45-6789 provided', '123-45-6789'],
      ['SSN bare after its label', 'SSN 123456789 typed', '123456789'],
      ['NINO spaced', 'NI number AB 12 34 56 C,', 'AB 12 34 56 C'],
      ['NINO compact', 'Payroll for JG103759A –', 'JG103759A'],
      ['CPF formatted', 'CPF do técnico: 529.982.247-25.', '529.982.247-25'],
      ['CPF bare after its label', 'CPF nº 52998224725 confere', '52998224725'],
      ['CPF bare without a label (its two check digits decide)', 'Tiago, 54056195234', '54056195234'],
      ['SSN with spaces after its label', 'SSN: 536 90 4399', '536 90 4399'],
      ['Steuer-ID without a label', 'Jana Koch, 26448751304', '26448751304'],
      ['Steuer-ID grouped', 'Steuer-ID: 26 448 751 304', '26 448 751 304'],
      ['NIR in its seven groups', 'n° SS 1 87 01 24 524 061 32', '1 87 01 24 524 061 32'],
      ['NIR with narrow no-break spaces', 'NIR 1\u202f87\u202f01\u202f24\u202f524\u202f061\u202f32.', '1\u202f87\u202f01\u202f24\u202f524\u202f061\u202f32'],
      ['codice fiscale', 'C.F. TCNMRN70B01F839E', 'TCNMRN70B01F839E'],
      ['codice fiscale in lower case', 'il mio cf tcnmrn70b01f839e grazie', 'tcnmrn70b01f839e'],
      ['CURP', 'CURP: NERB000905HMCTBBW6', 'NERB000905HMCTBBW6'],
      ['BSN printed 4.2.3, no label', 'Daan, 5093.50.112', '5093.50.112'],
      ['BSN bare after its label', 'mijn BSN is 509350112', '509350112'],
      ['BSN bare, the checksum deciding', 'Daan de Vries, 509350112', '509350112'],
      ['NIF spaced after its label', 'contribuinte 111 624 827', '111 624 827'],
      ['Aadhaar in 4-4-4', 'Raj Patel, 2913 3444 4743', '2913 3444 4743'],
      ['Aadhaar with hyphens', 'Aadhaar no. 2913-3444-4743', '2913-3444-4743'],
    ],
    ignores: [
      ['a DNI with the wrong check letter', 'DNI 33445566A'],
      ['a NIE with the wrong check letter', 'NIE X1234567A'],
      ['SSN area 000', 'SSN 000-12-3456'],
      ['SSN area 666', 'SSN 666-12-3456'],
      ['SSN area 9xx', 'SSN 912-34-5678'],
      ['SSN group 00 and serial 0000', '123-00-4567 123-45-0000'],
      ['an SSN-shaped part number', 'Part 123-45-6789-B'],
      ['bare nine digits without the SSN label', 'batch 123456789'],
      ['NINO with a Q prefix', 'like QQ 12 34 56 C'],
      ['NINO with an unissued prefix', 'GB 12 34 56 A'],
      ['company tax ids', 'CIF B98765432, VAT ESB12345678'],
      ['a CPF with a wrong check digit', 'CPF 529.982.247-26'],
      ['a CPF of one repeated digit', 'CPF 111.111.111-11'],
      ['eleven bare digits without the CPF label', 'lote 52998224725'],
      ['a CPF-shaped slice of a longer number', 'ref 1.529.982.247-25'],
      ['an SSN with spaces and no label', 'David, 536 90 4399'],
      ['a BSN-valid number announced as a phone', 'call me on 509 350 112'],
      ['a BSN-valid number after a thing label', 'Charge 509350112'],
      ['a Steuer-ID with a wrong check digit', 'Jana Koch, 26448751305'],
      ['a codice fiscale with a wrong check letter', 'C.F. TCNMRN70B01F839F'],
      ['digits after a "+" (a phone number)', 'Tel +34917236501'],
    ],
  });

  it('uses caller formats through the idFormats hook, alone or with the defaults', () => {
    const badge: IdFormat = { name: 'badge', pattern: /\bEMP-\d{6}\b/, isValid: (v) => !v.endsWith('000000') };
    const text = 'Badge EMP-004512, not EMP-000000, DNI 12345678Z';
    expect(redactPii(text, { idFormats: [badge] }).text).toBe('Badge [redacted:id_number], not EMP-000000, DNI 12345678Z');
    expect(redactPii(text, { idFormats: [...DEFAULT_ID_FORMATS, badge] }).text).toBe('Badge [redacted:id_number], not EMP-000000, DNI [redacted:id_number]');
  });
});

describe('credit_card', () => {
  it('implements Luhn', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(passesLuhn('378282246310005')).toBe(true);
  });

  detects('credit_card', {
    finds: [
      ['Visa in fours', 'card 4111 1111 1111 1111 cad 09/28', '4111 1111 1111 1111'],
      ['Mastercard with hyphens', 'on file: 4012-8888-8888-1881 (exp 11/28)', '4012-8888-8888-1881'],
      ['Amex 4-6-5', 'Amex 3782 822463 10005, receipt', '3782 822463 10005'],
      ['Diners 4-6-4', 'Diners Club 3056 930902 5904 old', '3056 930902 5904'],
      ['unseparated', 'typed 4242424242424242', '4242424242424242'],
      ['Mastercard 2-series', 'MC 2223 0031 2200 3222, límite', '2223 0031 2200 3222'],
      ['followed by expiry', 'pay 5555 5555 5555 4444 12/27 thanks', '5555 5555 5555 4444'],
      ['two halves of eight', 'copied 41111111 11111111 from the statement', '41111111 11111111'],
      ['grouped by dots', 'Karte 4111.1111.1111.1111 bitte', '4111.1111.1111.1111'],
      ['no-break spaces', 'carte 4111\u00a01111\u00a01111\u00a01111 exp', '4111\u00a01111\u00a01111\u00a01111'],
      ['narrow no-break spaces', 'CB 5555\u202f5555\u202f5555\u202f4444.', '5555\u202f5555\u202f5555\u202f4444'],
      ['18-digit Maestro, 4-4-4-4-2', 'tarjeta 6759 1234 5678 9012 37 ok', '6759 1234 5678 9012 37'],
      ['19 digits, 4-4-4-4-3', 'card 4111-1111-1111-1111-003', '4111-1111-1111-1111-003'],
    ],
    ignores: [
      ['Luhn-failing card-like numbers', '4532 0151 1283 0367 and 4111 1111 1111 1112'],
      ['random digit runs', 'order reference 1234 5678 1234 5678'],
      ['Luhn-valid IMEIs (15 digits starting 35 are not JCB)', 'IMEI 356938035643809'],
      ['ICCIDs and EANs', 'ICCID 8934071100001234567 EAN 8412345678905'],
      ['a valid number inside a longer run', 'ref 4111 1111 1111 1111 2222'],
      ['odd grouping', '41 11 11 11 11 11 11 11'],
      ['thousands grouped by dots', 'total 4.111.111.111.111.111 units'],
      ['spelled-out digits (known gap)', 'four zero one two, 8888 8888 1881'],
    ],
  });

  it('checks issuer prefixes by default; the check can be turned off', () => {
    const text = 'value 1234 5678 1234 5670';
    expect(passesLuhn('1234567812345670')).toBe(true);
    expect(redactPii(text).text).toBe(text);
    expect(redactPii(text, { cardRequireKnownIin: false }).text).toBe('value [redacted:credit_card]');
  });
});

describe('pii-eval', () => {
  it('marks every occurrence of a value except inside a longer labelled value', () => {
    const line = {
      text: 'a@b.es +34 612 345 678 and again a@b.es, local 612 345 678',
      entities: [
        { type: 'email' as const, value: 'a@b.es' },
        { type: 'phone' as const, value: '+34 612 345 678' },
        { type: 'phone' as const, value: '612 345 678' },
      ],
    };
    expect(goldSpans(line)).toEqual([
      { type: 'email', start: 0, end: 6 },
      { type: 'phone', start: 7, end: 22 },
      { type: 'email', start: 33, end: 39 },
      { type: 'phone', start: 47, end: 58 },
    ]);
  });

  it('scores strictly: a partial overlap is one false positive and one false negative', () => {
    const lines = [
      { text: 'call +1 (415) 555-0132 ext. 204', entities: [{ type: 'phone' as const, value: '+1 (415) 555-0132 ext. 204' }] },
      { text: 'mail x@acme.es', entities: [{ type: 'email' as const, value: 'x@acme.es' }] },
      { text: 'nothing here 2026-11-23', entities: [] },
    ];
    const report = evaluatePii(lines, (text) => {
      if (text.startsWith('call')) return [{ type: 'phone', start: 5, end: 22 }]; // extension left out
      if (text.startsWith('mail')) return [{ type: 'email', start: 5, end: 14 }];
      return [{ type: 'phone', start: 13, end: 23 }];
    });
    expect(report.perType.phone).toMatchObject({ tp: 0, fp: 2, fn: 1, precision: 0, recall: 0 });
    expect(report.perType.email).toMatchObject({ tp: 1, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 });
    expect(report.overall).toMatchObject({ tp: 1, fp: 2, fn: 1 });
    expect(report.overall.precision).toBeCloseTo(1 / 3);
    expect(report.overall.recall).toBeCloseTo(1 / 2);
    expect(report.overall.f1).toBeCloseTo(0.4);
    expect(report.partialOverlaps).toBe(1);
    expect(report.misses).toEqual([
      { kind: 'false_positive', line: 1, type: 'phone', value: '+1 (415) 555-0132' },
      { kind: 'false_negative', line: 1, type: 'phone', value: '+1 (415) 555-0132 ext. 204' },
      { kind: 'false_positive', line: 3, type: 'phone', value: '2026-11-23' },
    ]);
  });

  it('rejects fixture lines whose value is not in the text, naming the line', () => {
    const content = '{"text": "a@b.es", "entities": []}\n{"text": "hi", "entities": [{"type": "email", "value": "a@b.es"}]}\n';
    expect(() => parseLabelledJsonl(content)).toThrow('fixture line 2: value "a@b.es" not in text');
    expect(() => parseLabelledJsonl('{"text": "x", "entities": [{"type": "name", "value": "x"}]}')).toThrow('fixture line 1: bad entity');
  });
});

describe('labelled fixture (issue 9 targets)', () => {
  const fixture = path.join(__dirname, '..', '..', 'fixtures', 'pii', 'labelled.jsonl');
  const lines = parseLabelledJsonl(readFileSync(fixture, 'utf8'));
  const report = evaluatePii(lines, (text) => detectPii(text));

  it('has at least 250 lines with every category labelled', () => {
    expect(lines.length).toBeGreaterThanOrEqual(250);
    for (const type of PII_TYPES) expect(report.perType[type].tp + report.perType[type].fn).toBeGreaterThan(10);
  });

  it('reaches recall >= 0.95 and precision >= 0.95 for each of the four categories and overall', () => {
    const table = formatPiiReport(report);
    for (const type of PII_TYPES) {
      const { recall, precision } = report.perType[type];
      expect({ table, type, recall: recall >= 0.95, precision: precision >= 0.95 }).toEqual({ table, type, recall: true, precision: true });
    }
    expect({ table, overall: report.overall.precision >= 0.95 }).toEqual({ table, overall: true });
  });
});
