import { MASK_CHAR, maskNonPhoneNumerals } from './non-phone-numerals';
import { type TextRange, isWordChar, matchesOf } from './text-range';

// A run of digit groups joined by one separator each (space, hyphen, dot, slash, " - "), with an
// optional leading "+" and parenthesised groups: "+1 (415) 555-0132", "+44 (0)20 7946 0958".
// Separators are mandatory between plain groups so the pattern cannot backtrack exponentially, and
// a run never starts right after a digit (a run always takes every digit of a group), so a digit
// run costs one attempt, not one per digit.
const SEPARATOR = String.raw`[ \u00a0]?[\-.][ \u00a0]?|\/|[ \u00a0]`;
const GROUP = String.raw`(?:\(\d{1,5}\)|\d+)`;
// "(+34) 612 345 678": the country code itself may be in parentheses.
const COUNTRY_IN_PARENS = String.raw`\(\+\d{1,3}\)[ \u00a0]?`;
const RUN = new RegExp(String.raw`(?:${COUNTRY_IN_PARENS}|\+|(?<!\d))${GROUP}(?:(?:${SEPARATOR})${GROUP}|(?<=\))\d+|\(\d{1,5}\))*`, 'g');
const EXTENSION = /^,?[ \u00a0]*(?:ext(?:ensi[oó]n|n)?|anexo|durchwahl|poste|x)\.?:?[ \u00a0]*\d{1,6}(?!\d)/iu;

const NOT_LETTER_BEFORE = String.raw`(?<!\p{L})`;
const NOT_LETTER_AFTER = String.raw`(?!\p{L})`;

// Words that announce a phone number within the few characters before it. They let weaker shapes
// through (bare digit runs, 7-8 digit numbers, two groups) that would be too risky on their own.
const PHONE_WORDS = [
  'tel',
  'tlf',
  'tlfn',
  'tfno',
  'telf',
  'tel[eé]fono',
  'telefone',
  'telefon',
  't[eé]l[eé]phone',
  'phone',
  'ph',
  'mobile',
  'mob',
  'm[oó]vil',
  'cell',
  'cellphone',
  'celular',
  'cel',
  'handy',
  'portable',
  'call',
  'ring',
  'text',
  'll[aá]ma(?:me|le|nos)?',
  'llamar',
  'whats ?app',
  'wa',
  'fax',
  'contact',
  'contacto',
  'n[uú]mero',
  'number',
  'nr',
].join('|');
const PHONE_KEYWORD = new RegExp(String.raw`${NOT_LETTER_BEFORE}(?:${PHONE_WORDS})${NOT_LETTER_AFTER}|(?:^|[\s(])[tmfp]\s?[.:]`, 'iu');

// Labels that make the next number something else: orders, serials, part and asset numbers, readings.
const NOT_PHONE_LABELS = [
  'order',
  'orden',
  'pedido',
  'p\\.?o',
  'ot',
  'wo',
  'w\\/o',
  'work order',
  'invoice',
  'inv',
  'factura',
  'fra',
  'albar[aá]n',
  'delivery',
  'ref',
  'refer[eé]ncia',
  'reference',
  'ticket',
  'case',
  'caso',
  'incidencia',
  'incident',
  'serial',
  'serie',
  's\\/n',
  'sn',
  'n\\/s',
  'part',
  'p\\/n',
  'pn',
  'lot',
  'lote',
  'batch',
  'asset',
  'activo',
  'tag',
  'equipo',
  'ip',
  'iban',
  'account',
  'acct',
  'cuenta',
  'code',
  'c[oó]digo',
  'cp',
  'zip',
  'postal',
  'imei',
  'mac',
  'sku',
  'item',
  'art[ií]culo',
  'material',
  'model',
  'modelo',
  'job',
  'expediente',
  'contrato',
  'contract',
  'informe',
  'report',
  'counter',
  'contador',
  'reading',
  'lectura',
  'meter',
  'hor[oó]metro',
  'id',
  'qty',
  'cantidad',
  'total',
  'importe',
  'amount',
  'precio',
  'price',
  'cost',
  'coste',
  'nif',
  'cif',
  'dni',
  'nie',
  'ssn',
  'vat',
  'p[oó]liza',
  'policy',
];
const NUMBER_WORD = String.raw`(?:no\.?|nº|n°|#|num\.?|number|n[uú]mero|nr\.?)`;
const NOT_PHONE_LABEL_BEFORE = new RegExp(String.raw`${NOT_LETTER_BEFORE}(?:${NOT_PHONE_LABELS.join('|')})s?\.?(?:\s*${NUMBER_WORD})?(?:\s*[:#=\-])?\s*$`, 'iu');

const CURRENCY_BEFORE = /(?:[€$£¥]|(?<!\p{L})(?:eur|usd|gbp|chf))\s?$/iu;
// Single-letter units (V, A, h, m) are left out: after a space they are too often words ("a las 5");
// glued to the digits they are refused anyway.
const UNIT_AFTER = new RegExp(
  String.raw`^\s?(?:€|\$|£|%|°|º|(?:eur|euros?|usd|gbp|chf|kg|km|mm|cm|µm|um|rpm|hrs?|horas|hours|min|seg|kwh|kw|mw|kv|ma|bar|psi|kpa|mpa|nm|uds?|unidades|units|pcs|piezas|lts?|litros|ml|m3|m³|ciclos|cycles|veces|times|ops|hz|counts|pulses|impulsos|pulsos)${NOT_LETTER_AFTER})`,
  'iu',
);

// Bare digit runs are only taken without a phone word when they have the shape of a mobile or
// trunk-prefixed number somewhere: ES 6xx/7xx/8xx/9xx (9 digits), 0-prefixed national (FR, UK,
// DE, NL...), IT mobile 3xx (10 digits).
const BARE_NATIONAL = /^(?:[6-9]\d{8}|0[1-9]\d{8,10}|3\d{9})$/;

interface RunShape {
  readonly groups: readonly string[];
  readonly digits: string;
  readonly international: boolean;
  readonly firstParenthesised: boolean;
  readonly punctuation: ReadonlySet<string>;
}

function shapeOf(run: string): RunShape {
  const groups = run.match(/\d+/g) ?? [];
  return {
    groups,
    digits: groups.join(''),
    international: /^\(?\+/.test(run) || /^00[1-9]/.test(run),
    firstParenthesised: /^\(\d+\)/.test(run),
    punctuation: new Set(run.replace(/[\d\s()+]/g, '')),
  };
}

/** 1.234.567 or 12 345 678: a thousands-grouped quantity, not a phone. */
function isThousandsGrouped(groups: readonly string[]): boolean {
  return groups.length >= 2 && groups[0].length < 3 && groups.slice(1).every((g) => g.length === 3);
}

function hasPhoneShape(run: string, announced: boolean): boolean {
  const shape = shapeOf(run);
  const { groups, digits, punctuation } = shape;
  // Two dot-separated groups are a decimal (1234.5678), whatever the digit count.
  if (punctuation.has('.') && groups.length === 2) return false;
  if (punctuation.has('.') && punctuation.has('-')) return false;
  // A slash only after a 0-prefixed area code (German 030/12345678); dates are masked already.
  if (punctuation.has('/') && !(run.split('/').length === 2 && /^0\d+\/\d/.test(run))) return false;

  if (shape.international) {
    // E.164: at most 15 digits after "+", country codes never start with 0, and below 9 digits the
    // run is more likely a code with leading zeros (0012345678) than a foreign number.
    const national = /^\(?\+/.test(run) ? digits : digits.slice(2);
    return national[0] !== '0' && national.length >= 9 && national.length <= 15;
  }
  if (digits.length < 7 || digits.length > 12 || digits.startsWith('00')) return false;
  // One group, or digits dictated one by one ("6 4 4 1 2 3 4 5 6"): judged as a bare digit run.
  if (groups.length === 1 || groups.every((g) => g.length === 1)) return announced || BARE_NATIONAL.test(digits);
  // ddd-dd-dddd is the US SSN layout (checked as id_number); no phone plan is written that way.
  if (/^\d{3}-\d{2}-\d{4}$/.test(run)) return false;
  // 2026-1123-07, 2026-11-19-0042: document numbers that open with a year.
  if (/^(?:19[5-9]|20\d)\d$/.test(groups[0])) return false;
  if (isThousandsGrouped(groups) && !announced) return false;
  const groupSizesOk = groups.every((g, i) => (i === 0 ? g.length <= 5 : g.length >= 2 && g.length <= 8));
  if (!groupSizesOk) return false;
  if (announced) return true;
  if (digits.length < 9) return false;
  if (groups.length === 2) return digits.startsWith('0') || shape.firstParenthesised;
  // National plans that open with a 4-5 digit group carry a trunk 0 (0161 496 0000, 07700 900461);
  // 3349-111-000 or 1234-5678-9012 read as part numbers and codes.
  return groups[0].length < 4 || groups[0].startsWith('0');
}

/** How far before a number its phone word may be. */
const ANNOUNCE_REACH = 30;
/** How far before a number a label (order, serial...) or a currency is read. */
const LABEL_REACH = 40;
/** Characters around a run that its verdict reads: the label before, an extension or unit after. */
export const PHONE_CONTEXT_REACH = LABEL_REACH;

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';

function isAnnounced(text: string, start: number): boolean {
  // Only words after the previous number count, so one "Tel:" does not vouch for a whole line.
  let from = start;
  while (from > 0 && from > start - ANNOUNCE_REACH && !isDigit(text[from - 1])) from -= 1;
  return PHONE_KEYWORD.test(text.slice(from, start));
}

function isGluedBefore(text: string, start: number): boolean {
  const prev = text[start - 1];
  if (prev === undefined) return false;
  if (isWordChar(prev) || prev === MASK_CHAR) return true;
  // A leading "+" is a phone's own mark: "to=+34612345678" is still a phone number.
  if (text[start] === '+' || text.startsWith('(+', start)) return false;
  if (/[@#$€£¥=%&*\\+]/.test(prev)) return true;
  // "SKF-6205", "WO/1234", "A.123": a number hyphenated or dotted onto a code.
  return /[-/.]/.test(prev) && isWordChar(text[start - 2]) && !/(?:tel|tlf|tfno|telf|ph|mob)$/i.test(text.slice(Math.max(0, start - 5), start - 1));
}

function isGluedAfter(text: string, end: number): boolean {
  const next = text[end];
  if (next === undefined) return false;
  if (isWordChar(next) || /[@%°º]/.test(next) || next === MASK_CHAR) return true;
  // "4155550132-A", "612345678/B", "10.5": the number goes on as a code or a decimal.
  return /^[:,]\d|^[.\-/][\p{L}\p{N}]/u.test(text.slice(end, end + 2));
}

function isPhoneInContext(text: string, run: string, start: number, end: number): boolean {
  if (isGluedBefore(text, start) || isGluedAfter(text, end)) return false;
  const before = text.slice(Math.max(0, start - LABEL_REACH), start);
  if (NOT_PHONE_LABEL_BEFORE.test(before) || CURRENCY_BEFORE.test(before)) return false;
  if (UNIT_AFTER.test(text.slice(end, end + 12))) return false;
  return hasPhoneShape(run, isAnnounced(text, start));
}

/** The separators of a run, where it may be split: "612345678 699123456" may be two numbers. */
function separatorsOf(run: string): TextRange[] {
  return [...run.matchAll(new RegExp(SEPARATOR, 'g'))].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

// Two full international numbers at most; a longer run is a table of figures, not phone numbers,
// and bailing out keeps the split search linear in the text length.
const MAX_RUN_DIGITS = 30;
/**
 * The longest phone finding: a run of MAX_RUN_DIGITS digits each behind a parenthesis or " - ",
 * and its extension (24 characters).
 */
export const LONGEST_PHONE_MATCH = MAX_RUN_DIGITS * 6 + 24;

function phonesInRun(text: string, masked: string, runStart: number, run: string): TextRange[] {
  if (run.replace(/\D/g, '').length > MAX_RUN_DIGITS) return [];
  const withExtension = (start: number, end: number): TextRange => {
    const ext = EXTENSION.exec(masked.slice(end, end + 24));
    return { start, end: ext ? end + ext[0].length : end };
  };
  const accept = (start: number, end: number): TextRange | undefined => {
    const range = withExtension(start, end);
    return isPhoneInContext(masked, text.slice(start, end), range.start, range.end) ? range : undefined;
  };
  const whole = accept(runStart, runStart + run.length);
  if (whole) return [whole];
  for (const separator of separatorsOf(run)) {
    const first = accept(runStart, runStart + separator.start);
    const second = first && accept(runStart + separator.end, runStart + run.length);
    if (first && second) return [first, second];
  }
  return [];
}

/**
 * Ranges of phone numbers, international (+/00 prefix, up to 15 digits) or national. Context decides
 * the doubtful ones: labels (order, serial, IP...), units and currencies veto; phone words allow.
 */
export function findPhones(text: string): TextRange[] {
  const masked = maskNonPhoneNumerals(text);
  const found: TextRange[] = [];
  for (const m of matchesOf(RUN, masked)) {
    found.push(...phonesInRun(text, masked, m.index, m[0]));
  }
  return found;
}
