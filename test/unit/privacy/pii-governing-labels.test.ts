// The label governing a number decides what it is (docs/decisions/pii-label-governs-the-number.md):
// a counter's, a reading's, a register's, a delivery note's or a parcel's label keeps a number that
// looks like a phone or an identifier from being read as one, across a few words of complement and
// in a JSON key; a phone word nearer the number than such a label governs instead.
import { endsWithThingLabel, mentionsIdLabel } from '../../../domain/privacy/detectors/context-words';
import { detects } from '../../support/pii-cases';

describe('a governing label keeps phone-shaped numbers', () => {
  detects(
    'phone',
    [
      ['a phone word nearer than a counter label', 'Contador averiado, llámame al 622 418 903', '622 418 903'],
      ['a phone word in the complement of a meter label', 'meter room phone 0161 496 0123', '0161 496 0123'],
      ['a phone word before "Nr."', 'Tel.-Nr. 0711 2345678 (Werkstatt)', '0711 2345678'],
      ['a phone word nearer than a cost centre', 'Kostenstelle 4711, Handy 0171 2345678', '0171 2345678'],
      ['"die Nr" in a chat is the phone number', 'Die Nr vom Installateur: 0176 98765432', '0176 98765432'],
      ['a phone key in JSON', '{"mobile":"0687654321","name":"Eva"}', '0687654321'],
      ['a "+" number under a counter label (no counter is written with a country code)', 'Zählerstand gemeldet von +49 151 23456789', '+49 151 23456789'],
      ['a "+" number under a piece counter label', 'Contatore pezzi +39 347 123 4567', '+39 347 123 4567'],
      ["an invoice's queries line", 'Invoice queries: 0161 496 0123', '0161 496 0123'],
      ["an order's enquiries line", 'Order enquiries 0161 496 0123', '0161 496 0123'],
      ["an order's desk", 'Order desk: 0161 496 0123', '0161 496 0123'],
    ],
    [
      ['a counter label and its complement', 'Contador de horas: 622 418 903'],
      ['an Italian counter label and its complement', 'Contatore giri 338 274 1956'],
      ['a French meter label and two words', 'compteur eau froide 06 12 34 56 78'],
      ['a reading in a JSON key', 'row {"lectura":"0687654321","unidad":"kWh"}'],
      ['a value key with a quoted number', 'waarde "06-9876-543" is een lotnummer'],
      ['a delivery note label and aligned spaces', 'LIEFERSCHEIN    Nr 4 0021 5567'],
      ['a company registration across its country', 'Registered in England and Wales No. 0612 3456 78'],
      ['a trade register and its city', 'RCS Nanterre 0612 345 678'],
      ['a German compound counter', 'Lastzyklen 0221 442 118 seit Inbetriebnahme'],
      ['a Dutch meter reading compound', 'meterstand 0612 345 678 genoteerd'],
      ['a cycle count', 'Presse P3 cycle count 0039 3471 2345'],
      ['a company number abbreviated', 'Employer: Acme Ltd (Co. No. 07654321)'],
      ['a cost centre', 'please book it on cost centre 512-308-7716 today'],
      ['a German cost centre', 'Kostenstelle 0711 4567890 belasten'],
      ['a Spanish cost centre and its complement', 'centro de coste obra Bilbao 612 345 678'],
      ['a French cost centre', 'centre de coûts 06 12 34 56 78'],
      ['an abbreviated German compound (Art.-Nr.)', '(Art.-Nr. 0710.3340.52)'],
      ['an order number across four words', 'Die Bestellnummer für das Ventil ist 4500661872, danke.'],
      ['a DUNS number', 'our DUNS number 15-048-3782 is on the form'],
      ['a register number before a bracketed number', "la matricola INPS dell'azienda (5512340981) resta"],
      ['an order number after a desk (the label right before governs)', 'Help desk order no. 0612 345 678'],
    ],
    'type',
  );
});

describe("a governing label's reach ends at a sentence's end or at a person", () => {
  detects(
    'phone',
    [
      ['after an order sentence', 'Your order is late. Me: 0612 345 678', '0612 345 678'],
      ['after a short sentence ("ok.")', 'Spedizione ok. Marco 347 123 4567', '347 123 4567'],
      ['after a Spanish invoice sentence', 'Factura enviada. Juan 612 345 678', '612 345 678'],
      ['after a French invoice sentence', 'Facture payée. Marie 06 12 34 56 78', '06 12 34 56 78'],
      ['after an Italian invoice sentence and a reference', 'Fattura inviata. Rif. Marco 347 123 4567', '347 123 4567'],
      ['after a Dutch delivery sentence', 'Bestelling onderweg. Piet 06-12345678', '06-12345678'],
      ['after a German order sentence', 'Bestellung ist da. Meine: 0171 2345678', '0171 2345678'],
      ['an invoice to a person (German honorific)', 'Rechnung an Herrn Maier 0171 2345678', '0171 2345678'],
      ['a meter replaced by a person', 'meter replaced by John 07700 900123', '07700 900123'],
      ['an invoice question to a person', 'Invoice questions to Anna 07700 900123', '07700 900123'],
      ['a Dutch invoice question to a person', 'factuur vragen aan Anna 06 12345678', '06 12345678'],
      ['a French meter changed by a person', 'compteur changé par Marie 06 12 34 56 78', '06 12 34 56 78'],
      ['a Spanish shipment for a person', 'Envío para Juan Pérez 612 345 678', '612 345 678'],
      ['a Portuguese order of a person (Sr.)', 'Ordem, encomenda do Sr. Silva 912 345 678', '912 345 678'],
      ['a first-person number after a VAT-like word ("btw my number")', 'btw my number: 0612 345 678', '0612 345 678'],
      ['a signature line below a sentence ending in an invoice', 'Please find the invoice attached\n\n07700 900123', '07700 900123'],
      ['a German signature line below a sentence ending in an invoice', 'Anbei die Rechnung\n0171 2345678', '0171 2345678'],
      ['an Italian line below a sentence ending in a reading', 'Ci vediamo per la lettura\n347 123 4567', '347 123 4567'],
    ],
    [
      ['a counter label after a sentence', 'Alles erledigt. Zählerstand Keller 0612 345 678'],
      ['a register after "No." (a number word, no sentence end)', 'Registered in England No. 0612 3456 78'],
      ['an order number past a person', 'Rechnung an Herrn Maier, Bestellnummer 4500661872'],
      ['a meter reading past a person', 'by John: meter reading 0612 345 678'],
      ['a cost centre label alone on the line above (a form)', 'Kostenstelle\n0711 4567890'],
      ['a counter label and its complement alone on the line above', 'Dati impianto\nContatore giri\n338 274 1956'],
    ],
    'type',
  );
});

describe('a governing label keeps identifier-shaped numbers', () => {
  detects(
    'id_number',
    [
      ['a NIR after "est bon :" (bon is not a note there)', 'Le numéro de Mme Roy est bon : 2 91 03 75 116 002 70.', '2 91 03 75 116 002 70'],
      ['a Steuer-ID after the Steuer-IdNr label', 'Steuer-IdNr.: 86 095 742 719', '86 095 742 719'],
      ['a codice fiscale after an invoice label and a name', 'Fattura intestata a Mario Rossi RSSMRA85T10A562S', 'RSSMRA85T10A562S'],
      ['a codice fiscale right after an invoice label', 'Fattura RSSMRA85T10A562S', 'RSSMRA85T10A562S'],
      ['a CURP after an order label', 'Pedido de Eduardo GODE561231HDFRRN00', 'GODE561231HDFRRN00'],
    ],
    [
      ['a delivery note ("bon de") before a NIR-shaped number', 'bon de commande 2 91 03 75 116 002 70'],
      ['a VAT number after USt-IdNr and its country', 'Rechnung vom 3. April 2026\nUSt-IdNr.: DE 123 456 789'],
      ['an Italian VAT number after its country (CPF check passing)', 'P.IVA IT 52998224725'],
      ['a parcel number framed by S10 letters', 'Le colis LP 123 456 789 FR est parti.'],
      ['a counter with a NIF check passing', 'Contador de piezas 123 456 789'],
      ['a codice fiscale shape failing its check after an invoice label', 'Fattura RSSMRA85T10A562T'],
    ],
    'type',
  );
});

describe('label reading', () => {
  it.each([
    ['Contador de ciclos: ', true],
    ['compteur général ', true],
    ['Registered in England No. ', true],
    ['{"reading":"', true],
    ['Utility contact ', false],
    ['Zähler kaputt, ruf an unter ', false],
    ['counter room phone ', false],
  ])('%j ends with a thing label: %s', (words, expected) => {
    expect(endsWithThingLabel(words)).toBe(expected);
  });

  it('reads no identifier label inside a VAT label (USt-IdNr)', () => {
    expect(mentionsIdLabel('USt-IdNr.: ')).toBe(false);
    expect(mentionsIdLabel('Steuer-IdNr.: ')).toBe(true);
    expect(mentionsIdLabel('IdNr ')).toBe(true);
  });
});
