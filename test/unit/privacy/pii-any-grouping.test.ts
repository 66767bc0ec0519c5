// The forms people write beyond the detectors' usual layouts: identifiers split anywhere by any
// separator (one reader, grouped-id.ts), phone numbers as tel: links, with a 00 prefix and a
// space, with a DIN 5008 extension after a hyphen. Each value is found; the look-alikes that share
// the form (readings, serials, IBANs, labelled ids with a failing check) are kept.
import { detects } from '../../support/pii-cases';

describe('identifiers in any grouping', () => {
  detects(
    'id_number',
    [
      ['a Steuer-ID in pairs and triples', 'meine Steuer-ID: 86 095 742 719, danke', '86 095 742 719'],
      ['a Steuer-ID with dots', 'Steuer-IdNr. 860.957.427.19.', '860.957.427.19'],
      ['a NIR with hyphens', 'numéro de sécu 1-87-01-24-524-061-32 pour la mutuelle', '1-87-01-24-524-061-32'],
      ['a NIR with dots and no label', 'Dossier de Paul : 1.87.01.24.524.061.32.', '1.87.01.24.524.061.32'],
      ['a BSN with hyphens after its label', 'Burgerservicenummer: 111-222-333.', '111-222-333'],
      ['a BSN with no-break spaces after its label', 'mijn BSN is 1112\u00a022\u00a0333', '1112\u00a022\u00a0333'],
      ['a NIF with dots after its label', 'O seu NIF (123.456.789) está correto', '123.456.789'],
      ['a CPF with hyphens only', 'CPF 529-982-247-25.', '529-982-247-25'],
      ['a CURP in its groups', 'CURP NERB 000905 HMCTBB W6, gracias', 'NERB 000905 HMCTBB W6'],
      ['a NIE with no-break spaces', 'el NIE es X\u00a01234567\u00a0L', 'X\u00a01234567\u00a0L'],
      ['a codice fiscale after a chat name', 'Fra: RSS MRA 85T10 A562S', 'RSS MRA 85T10 A562S'],
    ],
    [
      ['a nine-digit number with hyphens and no label, BSN check passing', 'Kabel 111-222-333 aansluiten'],
      ['a Steuer-ID-valid number as a meter reading in groups', 'Zählerstand 86 095 742 719 kWh'],
      ['an IP address', 'gateway 192.168.100.201 is down'],
      ['a version', 'firmware 10.4.22.1873 installed'],
      ['a date and time', 'am 2024-06-30 um 23:58'],
      ['a labelled BSN with a failing check', 'BSN 111-222-334'],
    ],
    'type',
  );
});

describe('phone numbers written as links, prefixes and extensions', () => {
  detects(
    'phone',
    [
      ['a tel: link without the tel:', 'bel tel:+31201234567 morgen', '+31201234567'],
      ['a compact international number, not a card', 'WhatsApp +4915112345678', '+4915112345678'],
      ['a 00 prefix followed by a space', 'mon fixe : 00 33 1 43 12 56 78', '00 33 1 43 12 56 78'],
      ['a DIN 5008 extension', 'Durchwahl 030 123456-789.', '030 123456-789'],
    ],
    [
      ['an IBAN in groups', 'Rekeningnummer NL91 ABNA 0417 1643 00 graag'],
      ['a number after an acronym label', 'comercio FUC 334455667.'],
      ['a labelled NIF with a failing check', 'NIF 966314070'],
      ['a bare number after an id label earlier in the sentence', 'O NIF é 123456789 e o antigo (966314070) estava errado'],
    ],
    'type',
  );
});

describe('e-mail addresses wrapped in their local part, and code that looks like one', () => {
  detects(
    'email',
    [
      ['a local part wrapped after a dot', 'escribe a ana.maria.\ngil@talleres-norte.es hoy', 'ana.maria.\ngil@talleres-norte.es'],
      ['an address on the line after a sentence', 'See the office.\nmaria@acme.es', 'maria@acme.es'],
      ['an address after "e.g." and a break', 'e.g.\nmaria@acme.es', 'maria@acme.es'],
      ['an address at a new TLD in prose', 'write to maria@acme.app today', 'maria@acme.app'],
      ['an address in parentheses, wrapped in its domain', 'cc Daan (eva@kpnmail.\nnl)', 'eva@kpnmail.\nnl'],
      ['an address at .com assigned in code', 'mail = maria@acme.com', 'maria@acme.com'],
    ],
    [
      ['a matrix product assigned in code', 'in de log `res = q.top@heap.next` en'],
      ['the same expression quoted again on its own line', 'log: `res = a.top@heap.next`\na.top@heap.next\nKan dat uit?'],
      ['an expression passed to a call', 'print(w.app@x.shop)'],
    ],
    'type',
  );
});
