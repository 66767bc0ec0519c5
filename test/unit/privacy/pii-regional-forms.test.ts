// Forms of cards, phones and identifiers as some countries and tools write them: Troy and UATP
// cards, WhatsApp's waid= digits, Brazil's 0xx carrier form, old German area-code layouts,
// no-break hyphens, lists of numbers under one phone word, plural identifier labels.
import { detects, found } from '../../support/pii-cases';

describe('cards of the networks with a published range of their own', () => {
  detects(
    'credit_card',
    [
      ['a Troy card (9792)', 'paid with a Troy card 9792 4187 3352 0610 yesterday', '9792 4187 3352 0610'],
      ['a UATP card grouped as printed (4-4-4-3)', 'UATP 1194 7305 8261 741 for the crew flights', '1194 7305 8261 741'],
    ],
    [
      ['a Troy-led number failing Luhn', 'card 9792 4187 3352 0611 declined'],
      // Fifteen compact digits led by 1 are as often a French NIR: UATP is taken grouped only.
      ['fifteen compact digits led by 1', 'ref 119473058261741 on the ticket'],
      ['a Luhn-valid number after waid=', 'TEL;waid=4917612345679:+49 176 12345679'],
    ],
    'type',
  );

  it("reads WhatsApp's waid= and wa.me digits as phone numbers even when they pass Luhn", () => {
    expect(found('TEL;waid=4917612345679:+49 176 12345679')).toEqual([
      ['phone', '4917612345679'],
      ['phone', '+49 176 12345679'],
    ]);
    expect(found('https://wa.me/4917612345679?text=hi')).toEqual([['phone', '4917612345679']]);
  });
});

describe('national phone layouts', () => {
  detects(
    'phone',
    [
      ['a Belgian GSM', 'son GSM 0478 22 61 93, merci', '0478 22 61 93'],
      ["Brazil's 0xx carrier form", 'ligue 0xx21 3355-8120 à tarde', '0xx21 3355-8120'],
      ["Brazil's 0xx form in parentheses", 'escritório (0xx11) 4002-8922', '(0xx11) 4002-8922'],
      ["Brazil's 0xx form and its extension", 'central (0xx31) 3224-5500 ramal 214', '(0xx31) 3224-5500 ramal 214'],
      ['a German area code spaced from its trunk 0 in parentheses', 'Bereitschaft über (0 89) 21 45 60 33 erreichbar', '(0 89) 21 45 60 33'],
      ['DIN pairs from the right after an area code and a slash', 'Notfallkontakt: 0711 / 4 56 78 90', '0711 / 4 56 78 90'],
      ['no-break hyphens (U+2011)', 'astreinte (Loïc, 07\u201112\u201134\u201156\u201178). Ticket', '07\u201112\u201134\u201156\u201178'],
    ],
    [
      ['a 0xx number under a price label', 'Preis 0xx21 3355-8120'],
      ['a slash and a lone digit without a trunk-0 area code', 'ratio 12 / 3 45 67 89 set'],
    ],
  );

  it('splits two numbers at the separator they do not share with their groups', () => {
    expect(found('tlf 93 215 46 08 / 655 31 22 19. Va el martes')).toEqual([
      ['phone', '93 215 46 08'],
      ['phone', '655 31 22 19'],
    ]);
  });

  it('reads the next number of a list a phone word announces as a phone, whatever check it passes', () => {
    // 936551203 passes the BSN's eleven-test.
    expect(found('telefone 253 111 222 / 936 551 203, email')).toEqual([
      ['phone', '253 111 222'],
      ['phone', '936 551 203'],
    ]);
    expect(found('BSN 936551203 / 123456782')).toEqual([
      ['id_number', '936551203'],
      ['id_number', '123456782'],
    ]);
  });
});

describe('identifier labels', () => {
  detects('id_number', [['a plural label names the kind', 'HR needs the SSNs; Tom sent his as 212 48 3390 today', '212 48 3390']]);

  it('reads an SSN written with spaces after the same number in its own layout', () => {
    expect(found('Form A says 318-52-7741. Later the copy shows 318 52 7741, same.')).toEqual([
      ['id_number', '318-52-7741'],
      ['id_number', '318 52 7741'],
    ]);
    expect(found('Form A says 318-52-7741. The gauge reads 318 52 7742 now.')).toEqual([['id_number', '318-52-7741']]);
  });
  detects(
    'phone',
    [
      ['a phone after a sentence naming an identifier', 'DNI enviado. Ana 612 345 678', '612 345 678'],
      ['a phone after a Portuguese sentence naming a NIF', 'NIF da empresa enviado. Maria 912 345 678', '912 345 678'],
      ['a phone after an identifier label and a semicolon', 'BSN staat in het dossier; Piet 06 12345678', '06 12345678'],
      ['a phone after an identifier label and a person', 'Send the DNI copy to Ana 612 345 678', '612 345 678'],
      ['a phone after a German identifier label and a person', 'Steuer-ID folgt, Herr Maier 0171 2345678', '0171 2345678'],
      ['a phone after an Italian identifier sentence', 'Codice fiscale inviato. Marco 347 123 4567', '347 123 4567'],
      ['a phone below a line ending in an identifier label', 'Adjunto copia del DNI\n\n612 345 678', '612 345 678'],
      ['a phone below a German line ending in an identifier label', 'Anbei meine Steuer-ID\n0171 2345678', '0171 2345678'],
    ],
    [
      ['an identifier label right before a grouped number failing its check', 'o NIF da empresa (245 118 903) não passa'],
      ['an identifier label after a sentence, before a grouped number failing its check', 'Tudo certo. O NIF da empresa (245 118 903) não passa'],
      ['an identifier label alone on the line above', 'DNI\n612 345 678'],
    ],
  );
});
