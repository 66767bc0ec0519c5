import type { NationalIdKind } from '../validators/national-id';
import type { TableColumns } from './table-columns';

// The words around a number that say what it is, in the languages the redactor reads (English,
// Spanish, Portuguese, German, French, Italian, Dutch): a phone word lets a number through that
// would be too doubtful on its own, a thing's label (order, serial, batch, meeting...) makes it
// something else, an identifier's label makes it a national id. Each list is the everyday
// vocabulary of plant mail and notes, not a list of phrasings of any one fixture.
//
// Every test reads a bounded slice before a value (ContextReach), never the text at large, so a
// verdict costs the same at any position (docs/SECURITY.md, Text matching).

const NOT_LETTER_BEFORE = String.raw`(?<!\p{L})`;
const NOT_LETTER_AFTER = String.raw`(?!\p{L})`;

/** Words that announce a phone number a few characters before it. */
const PHONE_WORDS = [
  // English
  'tel',
  'tele?phone',
  'phone',
  'ph',
  'mobile',
  'mob',
  'cell',
  'cellphone',
  'call',
  'ring',
  'text',
  'dial',
  'reach',
  'hotline',
  'switchboard',
  'landline',
  'whats ?app',
  'wa',
  'fax',
  'contact',
  'number',
  // A contact line's own name: "Invoice queries: ...", "Order enquiries ...", "Order desk: ...".
  '(?:en|in)?quiries',
  'queries',
  '(?:help|service|order)?desk',
  // Spanish
  'tlf',
  'tlfn',
  'tfno',
  'telf',
  'tel[eé]fono',
  'm[oó]vil',
  'celular',
  'cel',
  'fijo',
  'centralita',
  'll[aá]ma(?:me|le|nos)?',
  'llamar',
  'contacto',
  'n[uú]mero',
  // Portuguese
  'telefone',
  'telem[oó]vel',
  'fixo',
  'liga(?:-me)?',
  'ligar',
  'contato',
  'zap',
  // German
  'telefon',
  'handy',
  'mobil',
  'festnetz',
  'rufnummer',
  'handynummer',
  'telefonnummer',
  'nummer',
  'ruf',
  'anrufen',
  'erreichbar',
  'r[uü]ckruf',
  'zentrale',
  // French
  't[eé]l[eé]phone',
  't[eé]l',
  'portable',
  'fixe',
  'appel(?:le|lez|er)?',
  'rappel(?:le|lez|er)?',
  'joignable',
  'num[eé]ro',
  'standard',
  // Italian
  'telefono',
  'cellulare',
  'fisso',
  'chiama(?:mi|re|teci)?',
  'reperibile',
  'centralino',
  'numero',
  // Dutch
  'telefoon',
  // Belgium and the Netherlands call a mobile a GSM.
  'gsm',
  'mobiel',
  'bel',
  'bellen',
  'terugbellen',
  'bereikbaar',
  'app',
];
// "T: ", "M. ", "T " in signatures: one letter for the line's kind of number.
export const PHONE_WORD = new RegExp(String.raw`${NOT_LETTER_BEFORE}(?:${PHONE_WORDS.join('|')})${NOT_LETTER_AFTER}|(?:^|[\s(])[tmfp]\s?[.:]|(?:^|[\s(])[tmfp] ?$`, 'iu');

/** Labels of things that carry numbers: orders, serials, parts, readings, money, meetings. */
const THING_LABELS = [
  // English
  'order',
  'p\\.?o',
  'purchase order',
  'wo',
  'w\\/o',
  'work order',
  'invoice',
  'inv',
  'delivery',
  'ref',
  'reference',
  'ticket',
  'case',
  'incident',
  'serial',
  's\\/n',
  'sn',
  'n\\/s',
  'part',
  'p\\/n',
  'pn',
  'lot',
  'batch',
  'asset',
  'tag',
  'doc',
  'document',
  'ip',
  'iban',
  'account',
  'acct',
  'code',
  'zip',
  'postal',
  'imei',
  'mac',
  'sku',
  'item',
  'article',
  'model',
  'job',
  'contract',
  'report',
  'counter',
  'reading',
  'meter',
  'id',
  'qty',
  'total',
  'amount',
  'price',
  'cost',
  'vat',
  // A company's tax and registration numbers and a parcel's tracking number are not a person's.
  'p\\.? ?iva',
  'partita iva',
  'iva',
  'tva',
  'btw',
  'ust-?id(?:nr)?',
  'reg',
  'registration',
  'tracking',
  'track(?: ?& ?| and )trace',
  'waybill',
  'awb',
  'shipment',
  'parcel',
  'gu[ií]a(?: de env[ií]o)?',
  'env[ií]o',
  'rastreio',
  'encomenda',
  'sendung',
  'suivi',
  'colis',
  'spedizione',
  'zending',
  'policy',
  'version',
  'build',
  'ts',
  'timestamp',
  'epoch',
  'meeting',
  'zoom',
  'teams',
  'webex',
  'conference',
  'passcode',
  'pin',
  // Spanish
  'orden',
  'orden de trabajo',
  'pedido',
  'ot',
  'factura',
  'fra',
  'albar[aá]n',
  'referencia',
  'incidencia',
  'caso',
  'serie',
  'lote',
  'activo',
  'equipo',
  'etiqueta',
  'cuenta',
  'c[oó]digo',
  'cp',
  'art[ií]culo',
  'modelo',
  'expediente',
  'contrato',
  'informe',
  'contador',
  'lectura',
  'hor[oó]metro',
  'cantidad',
  'importe',
  'precio',
  'coste',
  'p[oó]liza',
  'reuni[oó]n',
  // Portuguese
  'ordem',
  'ordem de servi[cç]o',
  'os',
  'fatura',
  'nota',
  'refer[eê]ncia',
  'chamado',
  's[eé]rie',
  'ativo',
  'conta',
  'artigo',
  'relat[oó]rio',
  'leitura',
  'quantidade',
  'pre[cç]o',
  'custo',
  'ap[oó]lice',
  'guia',
  'reuni[aã]o',
  // German
  'bestellung',
  'auftrag',
  'rechnung',
  'lieferschein',
  'beleg',
  'referenz',
  'charge',
  'konto',
  'z[aä]hler',
  'z[aä]hlerstand',
  'messwert',
  'menge',
  'betrag',
  'preis',
  'vertrag',
  'besprechung',
  'vorgang',
  // French
  'commande',
  // "bon" alone is "good" ("est bon : ..."): the delivery or order note is "bon de ..." or "bon n°".
  "bon (?:de|d')",
  'facture',
  'r[eé]f[eé]rence',
  'r[eé]f',
  'dossier',
  'compte',
  'mod[eè]le',
  'contrat',
  'rapport',
  'compteur',
  'relev[eé]',
  'quantit[eé]',
  'montant',
  'prix',
  'r[eé]union',
  // Italian
  'ordine',
  'ordine di lavoro',
  'odl',
  'fattura',
  'ddt',
  'riferimento',
  'rif',
  'matricola',
  'lotto',
  'codice',
  'codice articolo',
  'articolo',
  'modello',
  'contratto',
  'rapporto',
  'contatore',
  'quantit[aà]',
  'importo',
  'prezzo',
  'riunione',
  'pratica',
  // Dutch
  'bestelling',
  'werkorder',
  'factuur',
  'referentie',
  'partij',
  'artikel',
  'rekening',
  'teller',
  'meting',
  'aantal',
  'bedrag',
  'prijs',
  'vergadering',
];

/**
 * Labels that govern a number across a short complement ("Contador de ciclos: ...", "compteur
 * général ...", "Registered in England No. ...", "RCS Lyon ...", "P.IVA IT ..."): counters,
 * readings and meters, cycles, a company's registrations and tax numbers, delivery notes, invoices,
 * orders and parcels, and a value's own key ("reading", "waarde"). A number they govern is that
 * thing's, never a phone or a person's identifier. Short or everyday words (case, tag, code, os,
 * equipo...) are thing labels only right before the number (THING_LABELS).
 */
const GOVERNING_LABELS = [
  // English
  'counter',
  'reading',
  'meter',
  'cycles?',
  'cycle count',
  'registered',
  'registration',
  'company (?:no|number|reg)',
  'co\\. ?(?:no|nr)',
  'crn',
  'duns',
  'd-u-n-s',
  'cost cent(?:re|er)',
  'invoice',
  'delivery note',
  'order',
  'batch',
  'tracking',
  'parcel',
  'shipment',
  'waybill',
  'vat',
  'serial',
  'value',
  // Spanish
  'contador',
  'lectura',
  'hor[oó]metro',
  'ciclos?',
  'factura',
  'albar[aá]n',
  'pedido',
  'registro mercantil',
  'centro de costes?',
  'cif',
  'env[ií]o',
  'valor',
  // Portuguese
  'leitura',
  'fatura',
  'encomenda',
  'guia de remessa',
  'remessa',
  'nipc',
  'centro de custos?',
  // German
  'z[aä]hler',
  'z[aä]hlerstand',
  'z[aä]hlwerk',
  'stand',
  'zyklen',
  'zyklus',
  'lieferschein',
  'rechnung',
  'bestellung',
  'bestell-?(?:nummer|nr)',
  'auftrags-?(?:nummer|nr)',
  'kostenstelle',
  'auftrag',
  'sendung',
  'handelsregister',
  'hrb',
  'ust-?id(?:nr)?',
  'messwert',
  'wert',
  // French
  'compteur',
  'relev[eé]',
  'facture',
  "bon (?:de|d')",
  'rcs',
  'siren',
  'siret',
  'centre de co[uû]ts?',
  'colis',
  'tva',
  'valeur',
  // Italian
  'contatore',
  'contapezzi',
  'contaore',
  'lettura',
  'cicli',
  'fattura',
  'ordine',
  'ddt',
  'bolla',
  'lotto',
  'p\\.? ?iva',
  'partita iva',
  'rea',
  'matricola',
  'centro di costo',
  'spedizione',
  'valore',
  // Dutch
  'teller',
  'tellerstand',
  'meterstand',
  'meting',
  'factuur',
  'bestelling',
  'pakbon',
  'vrachtbrief',
  'kvk',
  'kostenplaats',
  'btw',
  'zending',
  'waarde',
];

/**
 * National identifiers' own labels and the kinds each names: a number after one is the identifier,
 * not a phone, and only the named kinds' checks may claim it (a BSN that fails the eleven-test is
 * not a Portuguese NIF because the NIF's check happens to pass). `null`: a generic label (a tax or
 * unique id of any country) that names no kind; `[]`: an identifier no default format reads.
 */
const ID_LABEL_KINDS: ReadonlyArray<readonly [label: string, kinds: readonly NationalIdKind[] | null]> = [
  // An acronym's plural names the same kind ("the crew's SSNs: ...").
  // Spain writes "DNI" for a foreigner's NIE too, and "NIF" for both (a Portuguese NIF is "NIF" as well).
  ['dnis?', ['es_dni', 'es_nie']],
  ['d\\.n\\.i\\.?', ['es_dni', 'es_nie']],
  ['nie', ['es_nie']],
  ['n\\.i\\.e\\.?', ['es_nie']],
  ['nifs?', ['es_dni', 'es_nie', 'pt_nif']],
  ['contribuinte', ['pt_nif']],
  // "Social security" is the French NIR's name in English as well as the SSN's.
  ['ssns?', ['us_ssn']],
  ['social security(?: number| no)?', ['us_ssn', 'fr_nir']],
  ['soc\\.? sec\\.?', ['us_ssn', 'fr_nir']],
  ['nino', ['uk_nino']],
  ['ni number', ['uk_nino']],
  ['ni no', ['uk_nino']],
  ['national insurance(?: number| no)?', ['uk_nino']],
  ['aadhaa?r', ['in_aadhaar']],
  ['uid', null],
  ['uidai', ['in_aadhaar']],
  ['bsns?', ['nl_bsn']],
  ['bsn-nummer', ['nl_bsn']],
  ['burgerservicenummer', ['nl_bsn']],
  ['sofinummer', ['nl_bsn']],
  ['cpfs?', ['br_cpf']],
  ['curp', ['mx_curp']],
  // The Mexican RFC (a tax id derived from the name) is no default format.
  ['rfc', []],
  ['nir', ['fr_nir']],
  ['s[eé]cu', ['fr_nir']],
  ['s[eé]curit[eé] sociale', ['fr_nir']],
  ['insee', ['fr_nir']],
  ['n° ss', ['fr_nir']],
  ['codice fiscale', ['it_codice_fiscale']],
  ['cod\\.? fisc\\.?', ['it_codice_fiscale']],
  ['c\\.f\\.?', ['it_codice_fiscale']],
  ['cf', ['it_codice_fiscale']],
  ['steuer-?id', ['de_steuer_id']],
  ['steuer-?idnr', ['de_steuer_id']],
  ['steuer id', ['de_steuer_id']],
  ['idnr', ['de_steuer_id']],
  ['steuerliche identifikationsnummer', ['de_steuer_id']],
  ['steuer-?identifikationsnummer', ['de_steuer_id']],
  // "Identifikationsnummer" alone (a payslip's, a form's) names no kind: every format's check may claim the value.
  ['identifikationsnummer', null],
  ['tin', null],
];
const ID_LABELS = ID_LABEL_KINDS.map(([label]) => label);
/** Each label alone, whole, to tell which one a match is. */
const ID_LABEL_WHOLE = ID_LABEL_KINDS.map(([label, kinds]) => ({ whole: new RegExp(String.raw`^(?:${label})$`, 'iu'), kinds }));

const NUMBER_WORD = String.raw`(?:no\.?|nº|n°|n\.|#|num\.?|number|n[uú]mero|num[eé]ro|nummer|nr\.?)`;
/**
 * A compound that ends in "number" (Teilenummer, Auftragsnr., artikelnr., abbreviated as
 * Art.-Nr. or Masch.-Nr.): a thing's number unless a phone compound (Tel.-Nr.).
 */
const NUMBER_COMPOUND = String.raw`\p{L}+\.?-?(?:nummer|nr\.?)`;
const PHONE_COMPOUND = /(?<!\p{L})(?:tel|telefon|handy|mobil|ruf|fax|telefoon|mobiel)\.?-?(?:nummer|nr)/iu;
// Spaces inside a label: several where a scan or a form aligns columns ("LIEFERSCHEIN   Nr").
const SPACES = String.raw`[ \t\u00a0\u202f]`;
const GAP = String.raw`${SPACES}{1,4}`;
// A JSON key or a quoted cell is a label too ({"reading":"0612345678"}, waarde "06-1234-567"), and
// a label before a bracketed number ("matricola INPS (4418...)").
const LABEL_TAIL = String.raw`s?\.?(?:${SPACES}{0,4}${NUMBER_WORD})?(?: ?(?:de|do|da|di|del|van|der|du|of|at|en|bei|op))?["']?(?: ?[:#=\-])?\s{0,4}["'(]?$`;
/** A country's two capitals between a label and its digits ("USt-IdNr.: DE 123...", "colis CB 123 456 789 FR"): read past them. */
const COUNTRY_PREFIX_AT_END = /(?<=[\s:])[A-Z]{2} ?$/u;
/** Up to four words between a governing label and its number: "de ciclos", "in England and Wales", "Lyon". */
const COMPLEMENT = String.raw`((?:${GAP}\p{L}[\p{L}'\u2019]{0,24}\.?){0,4})`;
/** Compounds that end in a counter or a reading (Lastzyklen, Stückzähler, Kilometerstand, meterstand). */
const COUNTER_COMPOUND = String.raw`\p{L}+(?:z[aä]hler|zyklen|stand)`;

/** "número", "Nummer", "No.": in a complement they belong to the label ("Contador número:"), no phone word. */
const NUMBER_WORDS = new RegExp(String.raw`${NOT_LETTER_BEFORE}${NUMBER_WORD}${NOT_LETTER_AFTER}`, 'giu');

const THING_LABEL_BEFORE = new RegExp(String.raw`${NOT_LETTER_BEFORE}(?:${THING_LABELS.join('|')}|${NUMBER_COMPOUND})${LABEL_TAIL}`, 'iu');
const GOVERNING_LABEL_BEFORE = new RegExp(String.raw`${NOT_LETTER_BEFORE}(?:${GOVERNING_LABELS.join('|')}|${COUNTER_COMPOUND})${COMPLEMENT}${LABEL_TAIL}`, 'iu');
// "USt-IdNr": an identifier's label is not the tail of a hyphenated word (a company's VAT label).
const ID_LABEL_START = String.raw`(?<!\p{L}|\p{L}-)`;
const ID_LABEL_BEFORE = new RegExp(String.raw`${ID_LABEL_START}(?:${ID_LABELS.join('|')})${LABEL_TAIL}`, 'iu');
/** An identifier's label anywhere in the words before a value ("my BSN is", "NIF do João:"). */
const ID_LABEL_NEAR = new RegExp(String.raw`${ID_LABEL_START}(?:${ID_LABELS.join('|')})${NOT_LETTER_AFTER}`, 'iu');
const ID_LABELS_NEAR = new RegExp(ID_LABEL_NEAR.source, 'giu');

/** How far before a value its words are read. */
export const CONTEXT_REACH = 40;

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';

/**
 * The words right before `start`: back to the previous digit (one label does not vouch for the
 * next number after another), at most `reach` characters.
 */
export function wordsBefore(text: string, start: number, reach: number = CONTEXT_REACH): string {
  let from = start;
  while (from > 0 && from > start - reach && !isDigit(text[from - 1])) from -= 1;
  return text.slice(from, start);
}

/**
 * The words that govern the value at [start, end): its column's header when it is a table's cell
 * (table-columns.ts), else the words right before it (wordsBefore).
 */
export function governingWords(text: string, start: number, end: number, columns: TableColumns, reach: number = CONTEXT_REACH): string {
  return columns.headerOf(start, end) ?? wordsBefore(text, start, reach);
}

// Every word and label has a letter: words without one (a line break, ", ") skip the long patterns,
// which is most numbers of a digit-dense text.
const LETTER = /\p{L}/u;

/** A phone word in the words before (`tel.`, `móvil`, `ruf mich an unter`...). */
export function isAnnouncedAsPhone(words: string): boolean {
  return LETTER.test(words) && PHONE_WORD.test(words);
}

// "253 604 119 / 926 771 048", "0612 ... ou 0699 ...": what joins two numbers of one list.
const LIST_JOIN = /^[ \u00a0]?(?:[/,]|or|ou|o|oder|of|y|e|et|en)[ \u00a0]?$/iu;
const NUMBER_CHAR = /[\d \u00a0\u202f().+-]/;
/** How far back the number before a list's join is skipped: a phone number and its spaces. */
const LISTED_NUMBER_REACH = 24;

/**
 * The value at `start` follows another number in a list, and a phone word announces that list
 * (`telefone 253 604 119 / 926 771 048`): the phone word names both numbers.
 */
export function continuesAnnouncedList(text: string, start: number): boolean {
  const join = wordsBefore(text, start, 6);
  let from = start - join.length;
  if (!isDigit(text[from - 1]) || !LIST_JOIN.test(join)) return false;
  const stop = Math.max(0, from - LISTED_NUMBER_REACH);
  while (from > stop && NUMBER_CHAR.test(text[from - 1])) from -= 1;
  return isAnnouncedAsPhone(wordsBefore(text, from));
}

// A sentence's or a clause's end: a word and its full stop or semicolon ("paid. ", "ok. ", "dossier; "),
// not a number word's or "Co."'s abbreviation ("No. ", "num. ").
const SENTENCE_END = /(?<!\p{L})(?!(?:no|nr|co|num)\.)\p{L}{2,}[.!?;](?=\s)/giu;
// A person named or addressed: honorifics, first-person words, and the words before a recipient or an agent.
const PERSON_MARKS = [
  // English
  'to|by|from|mr|mrs|ms|miss|dr|my|me|mine',
  // Spanish and Portuguese
  'para|por|al|ao|don|do[nñ]a|sr|sra|srta|mi|yo|meu|minha|eu',
  // German
  'an|von|herrn?|frau|hr|fr|mein|meine|meiner|mir|mich|ich',
  // French
  'à|par|m|mme|mlle|monsieur|madame|mon|ma|moi|je',
  // Italian
  'sig|sig\\.ra|signora?|dott|mio|mia|io',
  // Dutch
  'aan|door|dhr|mevr|mevrouw|meneer|mijn|mij|ik',
];
const PERSON_MARK = new RegExp(String.raw`${NOT_LETTER_BEFORE}(?:${PERSON_MARKS.join('|')})(?:\.|${NOT_LETTER_AFTER})`, 'giu');

/**
 * The words before a value from its clause's start: after the last sentence end (`Invoice paid.
 * Me: ...`, `DNI enviado. Ana ...`) or person's mark (`Rechnung an Herrn Maier`, `meter replaced
 * by John`, `btw my number:`). A label's complement qualifies the thing, and an identifier's label
 * names the value it stands with: neither runs into another sentence or on to a person.
 */
export function clauseBefore(words: string): string {
  let start = 0;
  for (const m of words.matchAll(SENTENCE_END)) start = Math.max(start, m.index + m[0].length);
  for (const m of words.matchAll(PERSON_MARK)) start = Math.max(start, m.index + m[0].length);
  return words.slice(start);
}

/**
 * The nearest label before the value names a thing (docs/decisions/pii-label-governs-the-number.md):
 * the words end in a thing's label (`order no.`, `Seriennummer:`, `Zoom-ID`), or in a governing
 * label and at most four words of complement with no phone word among them, all in the value's
 * clause (`Contador de ciclos:`, `compteur général`, `RCS Lyon`).
 */
export function endsWithThingLabel(written: string): boolean {
  if (!LETTER.test(written)) return false;
  const words = written.replace(COUNTRY_PREFIX_AT_END, '');
  const lineStart = labelLineStart(words);
  const m = THING_LABEL_BEFORE.exec(words);
  if (m && !PHONE_COMPOUND.test(m[0]) && startsItsLine(words, m.index, lineStart)) return true;
  // Most numbers have no governing label at all: their clause is not looked for.
  if (!GOVERNING_LABEL_BEFORE.test(words)) return false;
  const clause = clauseBefore(words);
  const governing = GOVERNING_LABEL_BEFORE.exec(clause);
  if (governing === null || !startsItsLine(words, words.length - clause.length + governing.index, lineStart)) return false;
  // A phone word in the complement is nearer the number than the label: it governs.
  return !PHONE_WORD.test(governing[1].replace(NUMBER_WORDS, ' ')) && !ID_LABEL_NEAR.test(governing[1]);
}

/**
 * Where a label must start when a line break stands between it and the value: at its line's start
 * (a form: `Kostenstelle\n4711`); ending a line of prose (`Anbei die Rechnung\n0171 2345678`, a
 * signature below) it names nothing on the next line. -1: no line break between, any position.
 */
function labelLineStart(words: string): number {
  const body = words.trimEnd();
  return words.slice(body.length).includes('\n') ? body.lastIndexOf('\n') + 1 : -1;
}

const NOT_SPACE = /\S/;

function startsItsLine(words: string, at: number, lineStart: number): boolean {
  return lineStart < 0 || (at >= lineStart && !NOT_SPACE.test(words.slice(lineStart, at)));
}

/** The words end in a national identifier's label (`DNI`, `SSN:`, `codice fiscale`). */
export function endsWithIdLabel(words: string): boolean {
  if (!LETTER.test(words)) return false;
  const m = ID_LABEL_BEFORE.exec(words);
  return m !== null && startsItsLine(words, m.index, labelLineStart(words));
}

/** A line break stands between the words and the value they precede. */
export function endsWithLineBreak(words: string): boolean {
  return labelLineStart(words) >= 0;
}

/** A national identifier's label among the words before (`my BSN is`, `NIF do João:`). */
export function mentionsIdLabel(words: string): boolean {
  return LETTER.test(words) && ID_LABEL_NEAR.test(words);
}

/**
 * The identifier kinds the labels among the words before name (`BSN`, `NIF do João:`, `DNI o NIE`),
 * or null when no label names a kind (none there, or a generic one such as `TIN`): then every
 * format's check may claim the value.
 */
export function idKindsNamedIn(words: string): ReadonlySet<NationalIdKind> | null {
  if (!LETTER.test(words)) return null;
  const named = new Set<NationalIdKind>();
  let any = false;
  for (const m of words.matchAll(ID_LABELS_NEAR)) {
    const kinds = ID_LABEL_WHOLE.find(({ whole }) => whole.test(m[0]))?.kinds;
    if (kinds === null || kinds === undefined) return null;
    any = true;
    for (const kind of kinds) named.add(kind);
  }
  return any ? named : null;
}
