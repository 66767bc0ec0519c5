import { type CountryCode, isNationalNumberOf, isPossibleInternational } from '../validators/phone';
import { CONTEXT_REACH, clauseBefore, endsWithIdLabel, endsWithLineBreak, endsWithThingLabel, isAnnouncedAsPhone, mentionsIdLabel, wordsBefore } from './context-words';
import { TABLE_REACH, TableColumns } from './table-columns';
import { MASK_CHAR, maskNonPhoneNumerals } from './non-phone-numerals';
import { type TextRange, followsWhatsAppLink, isWordChar, matchesOf } from './text-range';

// A run of digit groups joined by one separator each (a space of any width, hyphen, dot, slash,
// " - ", " / "), with an optional leading "+" and parenthesised groups: "+1 (415) 555-0132",
// "+44 (0)20 7946 0958", "0161 / 760 6039". Separators are mandatory between plain groups so the
// pattern cannot backtrack exponentially, and a run never starts right after a digit (a run always
// takes every digit of a group), so a digit run costs one attempt, not one per digit.
const SPACE = String.raw`[ \u00a0\u2007\u2009\u202f]`;
// A hyphen may be the no-break one (U+2011) or U+2010, as word processors write them.
const SEPARATOR = String.raw`${SPACE}?[\-\u2010\u2011./]${SPACE}?|${SPACE}{1,2}`;
// "(0 30)": an old German layout spaces the trunk 0 from the area code inside the parentheses.
const GROUP_FORMS = String.raw`\((?:0${SPACE})?\d{1,6}\)|\d+`;
const GROUP = `(?:${GROUP_FORMS})`;
// Brazil's "0xx11 2977-4310", "(0xx21) 2233-4451": the trunk 0, "xx" for the carrier code a caller
// picks, then the area code. Read as a trunk 0 before the area code.
const BRAZIL_CARRIER_AREA = String.raw`\(0[xX]{2}\d{2}\)|0[xX]{2}\d{2}`;
// "(+34) 612 345 678": the country code itself may be in parentheses.
const COUNTRY_IN_PARENS = String.raw`\(\+\d{1,3}\)${SPACE}?`;
const RUN = new RegExp(String.raw`(?:${COUNTRY_IN_PARENS}|\+|(?<!\d))(?:${BRAZIL_CARRIER_AREA}|${GROUP_FORMS})(?:(?:${SEPARATOR})${GROUP}|(?<=\))\d+|\(\d{1,5}\))*`, 'g');

// "ext. 204", "x223", "(ext. 278)", "(Durchwahl 243)", "(ramal 475)", "poste 12": the words for an
// extension in the languages the redactor reads, bare or in parentheses.
const EXTENSION_WORDS = 'ext(?:ensi[oó]n|ension|ens[aã]o|n)?|x|anexo|ramal|durchwahl|dw|app|apparat|nebenstelle|poste|interno|int|toestel|tst';
const EXTENSION = new RegExp(String.raw`^,?${SPACE}{0,2}(\(${SPACE}?)?(?:${EXTENSION_WORDS})\.?:?${SPACE}?\d{1,6}(?!\d)(${SPACE}?\))?`, 'iu');
/** The longest extension taken after a number: "(extensión 123456)" and its spaces. */
const LONGEST_EXTENSION = 32;

const ACRONYM_BEFORE = /(?<![\p{L}\p{N}])\p{Lu}{2,6}:? ?$/u;
/** How far back an identifier's label is read for a bare number: across sentences ("O anterior (966314070)" refers back to a NIF). */
const ID_LABEL_SENTENCE_REACH = 100;

/**
 * The lengths of the all-digit identifiers the redactor knows (SSN, BSN, NIF 9; CPF, Steuer-ID 11;
 * Aadhaar 12; NIR 13 and 15): a bare number of another length after an identifier's label is not
 * that identifier written wrong ("0781249637" in a row that also holds a NIR).
 */
const ALL_DIGIT_ID_LENGTHS: ReadonlySet<number> = new Set([9, 11, 12, 13, 15]);

const LONE_LETTER_BEFORE = /(?<!\p{L})\p{L} $/u;
const LONE_LETTER_AFTER = /^ \p{L}(?!\p{L})/u;

const CURRENCY_BEFORE = /(?:[€$£¥]|(?<!\p{L})(?:eur|usd|gbp|chf|r\$))\s?$/iu;
// Single-letter units (V, A, h, m) are left out: after a space they are too often words ("a las 5");
// glued to the digits they are refused anyway.
const UNIT_AFTER = new RegExp(
  String.raw`^\s?(?:€|\$|£|%|°|º|(?:eur|euros?|usd|gbp|chf|kg|km|mm|cm|µm|um|rpm|hrs?|horas|hours|min|seg|kwh|kw|mw|kv|ma|bar|psi|kpa|hpa|mpa|nm|uds?|unidades|units|pcs|piezas|lts?|litros|ml|m3|m³|ciclos|cycles|veces|times|ops|hz|counts|pulses|impulsos|pulsos)(?!\p{L}))`,
  'iu',
);

/**
 * The countries whose plans decide a number written without a country code and without a phone
 * word: those of the languages the redactor reads (context-words.ts), and their neighbours.
 */
export const NATIONAL_PLAN_COUNTRIES: readonly CountryCode[] = ['ES', 'PT', 'IT', 'FR', 'BE', 'NL', 'DE', 'AT', 'CH', 'GB', 'IE', 'US', 'CA', 'MX', 'BR', 'IN'];

interface RunShape {
  readonly groups: readonly string[];
  readonly digits: string;
  readonly international: boolean;
  readonly firstParenthesised: boolean;
  readonly punctuation: ReadonlySet<string>;
}

const INTERNATIONAL_00 = new RegExp(String.raw`^00${SPACE}?[1-9]`);

/**
 * The run as its digits are read: Brazil's "0xx11" is a trunk 0 before the area code, an old
 * German "(0 30)" the area code "(030)".
 */
const BRAZIL_CARRIER_AT_START = /^(\(?)0[xX]{2}/;
const SPACED_TRUNK_AT_START = new RegExp(String.raw`^\(0${SPACE}`);

function readAs(run: string): string {
  return run.replace(BRAZIL_CARRIER_AT_START, '$10').replace(SPACED_TRUNK_AT_START, '(0');
}

function shapeOf(run: string): RunShape {
  const groups = run.match(/\d+/g) ?? [];
  return {
    groups,
    digits: groups.join(''),
    // "0049 ...", "00 33 1 ...": the international prefix 00, with or without a space after it.
    international: /^\(?\+/.test(run) || INTERNATIONAL_00.test(run),
    firstParenthesised: /^\(\d+\)/.test(run),
    punctuation: new Set(run.replace(/[\d\s()+]/g, '').replace(/[\u2010\u2011]/g, '-')),
  };
}

/** 1.234.567 or 12 345 678: a thousands-grouped quantity, not a phone. */
function isThousandsGrouped(groups: readonly string[]): boolean {
  return groups.length >= 2 && groups[0].length < 3 && groups.slice(1).every((g) => g.length === 3);
}

/** What a national run's shape says: a phone, not one, or one if a numbering plan has it. */
type NationalShape = 'phone' | 'not_phone' | 'if_in_a_plan';

function nationalShape(run: string, shape: RunShape, announced: boolean): NationalShape {
  const { groups, digits, punctuation } = shape;
  if (digits.length < 7 || digits.length > 12 || digits.startsWith('00')) return 'not_phone';
  if (punctuation.has('.') && punctuation.has('-')) return 'not_phone';
  // A slash after a 0-prefixed area code (German 030/12345678, 0161 / 760 6039), or between every
  // group (622/118/904, 06/12/34/56/78), as some write any grouping; dates are masked already. Groups
  // joined by slashes alone are also how ratios, part numbers and paths are written, so without a
  // phone word a plan must have the number.
  const areaSlash = run.split('/').length === 2 && /^0\d+\s?\/\s?\d/.test(run);
  const slashesOnly = punctuation.size === 1 && punctuation.has('/') && groups.length >= 3 && !/\s/.test(run);
  if (punctuation.has('/') && !areaSlash && !slashesOnly) return 'not_phone';
  // 2341 2341 2346 is the Aadhaar's layout (checked as id_number, failing or not); no plan writes a
  // national number as three groups of four not led by a trunk 0, so even a phone word does not make it one.
  if (groups.length === 3 && groups.every((g) => g.length === 4) && !digits.startsWith('0')) return 'not_phone';
  // Two dot-separated groups are a decimal (1234.5678), unless the first is a trunk-prefixed area code (0160.5961029).
  if (punctuation.has('.') && groups.length === 2) return /^0\d{2,}$/.test(groups[0]) ? (announced ? 'phone' : 'if_in_a_plan') : 'not_phone';
  // One group, or digits dictated one by one ("6 4 4 1 2 3 4 5 6"): a bare digit run. Ten bare
  // digits from 1 000 000 000 to 2 199 999 999 are Unix time in seconds (2001 to 2039) far more
  // often than a number written without a single space.
  if (groups.length === 1 || groups.every((g) => g.length === 1)) {
    if (announced) return 'phone';
    return groups.length === 1 && /^(?:1\d|2[01])\d{8}$/.test(digits) ? 'not_phone' : 'if_in_a_plan';
  }
  // ddd-dd-dddd is the US SSN layout (checked as id_number); no phone plan is written that way.
  if (/^[1-9]\d{2}[- ]\d{2}[- ]\d{4}$/.test(run)) return 'not_phone';
  // 2026-1123-07, 2026-11-19-0042: document numbers that open with a year.
  if (/^(?:19[5-9]|20\d)\d$/.test(groups[0])) return 'not_phone';
  if (isThousandsGrouped(groups) && !announced) return 'not_phone';
  // An area code of up to 5 digits (6 with its trunk 0, as India's national format writes mobiles:
  // 098765 43210), then groups of 2 to 8; DIN 5008 pairs from the right may leave one digit after
  // an area code in parentheses or before a slash: (0231) 4 42 50 39, 0621 / 5 88 21 40.
  const groupSizesOk = groups.every((g, i) =>
    i === 0 ? g.length <= (g.startsWith('0') ? 6 : 5) : (g.length >= 2 || (i === 1 && (shape.firstParenthesised || areaSlash))) && g.length <= 8,
  );
  // After a phone word, a number split anywhere (an OCR'd scan's "0583 4 4 9 1 2 0") is a phone if a plan has it.
  if (!groupSizesOk) return announced ? 'if_in_a_plan' : 'not_phone';
  if (announced) return 'phone';
  if (digits.length < 9) return 'not_phone';
  if (slashesOnly) return 'if_in_a_plan';
  // A trunk 0 or an area code in parentheses is how national numbers are written, in any country.
  if (digits.startsWith('0') || shape.firstParenthesised) return 'phone';
  // 3349-111-000 or 1234-5678-9012 read as part numbers and codes; other groupings (612 345 678,
  // 347 123 4567, but also meeting ids and identifiers that fail their check) are phones if a plan has them.
  if (groups.length >= 3) return groups[0].length < 4 ? 'if_in_a_plan' : 'not_phone';
  // Ten digits in two groups led by a 3 to 5-digit one are how mobiles are written without a trunk
  // 0 (India's 98765 43210, Italy's 347 1284590); other pairs read as codes and quantities.
  return digits.length === 10 && groups[0].length >= 3 && groups[0].length <= 5 && !punctuation.has('.') ? 'if_in_a_plan' : 'not_phone';
}

/** The digits after the "+" or "00" of an international run, without a trunk "(0)". */
function internationalDigits(run: string): string {
  const digits = run.replace(/\(0\)/, '').replace(/\D/g, '');
  return /^\(?\+/.test(run) ? digits : digits.slice(2);
}

/** What a run's shape says (an international run's length decided already), before any plan is asked. */
function shapeVerdict(run: string, shape: RunShape, announced: boolean, whatsapp: boolean): NationalShape {
  if (whatsapp) return shape.groups.length === 1 && isPossibleInternational(shape.digits) ? 'phone' : 'not_phone';
  if (shape.international) return isPossibleInternational(internationalDigits(run)) ? 'phone' : 'not_phone';
  return nationalShape(run, shape, announced);
}

/** Characters around a run that its verdict reads: the words before, an extension or unit after. */
export const PHONE_CONTEXT_REACH = Math.max(CONTEXT_REACH, LONGEST_EXTENSION, TABLE_REACH);

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

function isPhoneInContext(text: string, run: string, start: number, end: number, columns: TableColumns): boolean {
  const whatsapp = followsWhatsAppLink(text, start);
  if (!whatsapp && isGluedBefore(text, start)) return false;
  if (isGluedAfter(text, end)) return false;
  // A table's cell is governed by its column's header, not by the cells before it on its row.
  const header = columns.headerOf(start, end);
  const words = header ?? wordsBefore(text, start);
  // An extension written after it announces a phone number as well as a phone word before it.
  const announced = isAnnouncedAsPhone(words) || end > start + run.length;
  // The shape first: most runs it refuses need no label read (every check here must hold).
  const read = readAs(run);
  const shape = shapeOf(read);
  const verdict = shapeVerdict(read, shape, announced, whatsapp);
  if (verdict === 'not_phone') return false;
  // No counter, reading or register is written with a "+": an explicit country code is a phone's
  // own mark, so a thing's label (a counter's, a register's) does not govern it.
  if ((endsWithThingLabel(words) && !/^\(?\+/.test(run)) || endsWithIdLabel(words) || CURRENCY_BEFORE.test(words)) return false;
  if (UNIT_AFTER.test(text.slice(end, end + 12))) return false;
  // "X 1234567 L": a number framed by two lone letters is a code (a Spanish NIE written spaced).
  if (!announced && LONE_LETTER_BEFORE.test(words) && LONE_LETTER_AFTER.test(text.slice(end, end + 3))) return false;
  // "FUC 334455667", "NIF 966314070": an acronym right before names what the number is, and it is
  // no phone word. A bare number after an identifier's label earlier in the sentence is that
  // identifier written wrong (its check fails), not a phone number.
  // "MX +52 81 8357 2210", "US +1 713 621 4470": a country's initials before a "+" number name its country.
  if (!announced && !/^\(?\+/.test(run) && ACRONYM_BEFORE.test(words)) return false;
  // "o NIF da empresa que deram (259 441 820)": an identifier's label among the words right before
  // in the number's clause, and no phone word, names the number an identifier (its check failing: a
  // wrong one). "DNI enviado. Ana 612 345 678": a label in the sentence before names nothing here,
  // nor one on the line above ("Adjunto copia del DNI\n612 345 678": a label alone there is
  // endsWithIdLabel's).
  if (!announced && !shape.international && !endsWithLineBreak(words) && mentionsIdLabel(words) && mentionsIdLabel(clauseBefore(words))) return false;
  if (
    !announced &&
    header === null &&
    /^\d+$/.test(run) &&
    ALL_DIGIT_ID_LENGTHS.has(run.length) &&
    mentionsIdLabel(text.slice(Math.max(0, start - ID_LABEL_SENTENCE_REACH), start))
  )
    return false;
  return verdict === 'phone' || isNationalNumberOf(shape.digits, NATIONAL_PLAN_COUNTRIES);
}

/** The separators of a run, where it may be split: "612345678 699123456" may be two numbers. */
const SEPARATORS = new RegExp(SEPARATOR, 'g');

/**
 * The separators of a run, the rarest kind first: in "94 412 55 07 / 656 12 98 40" the one " / "
 * joins two numbers grouped by spaces, so it is tried before any space.
 */
function separatorsOf(run: string): TextRange[] {
  const found = [...run.matchAll(SEPARATORS)];
  const count = new Map<string, number>();
  for (const m of found) count.set(m[0].trim(), (count.get(m[0].trim()) ?? 0) + 1);
  return found.sort((a, b) => (count.get(a[0].trim()) ?? 0) - (count.get(b[0].trim()) ?? 0)).map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** The extension written after a number ending at `end`, as a range end; `end` when there is none. */
function extensionEnd(masked: string, end: number): number {
  const ext = EXTENSION.exec(masked.slice(end, end + LONGEST_EXTENSION));
  if (!ext) return end;
  const [taken, open, close] = ext;
  if (open && !close) return end; // "(ext. 12" never closed: not an extension of this number
  return end + (close && !open ? taken.length - close.length : taken.length);
}

// Two full international numbers at most; a longer run is a table of figures, not phone numbers,
// and bailing out keeps the split search linear in the text length.
const MAX_RUN_DIGITS = 30;
/** The longest phone finding: a run of MAX_RUN_DIGITS digits each behind a parenthesis or " - ", and its extension. */
export const LONGEST_PHONE_MATCH = MAX_RUN_DIGITS * 6 + LONGEST_EXTENSION;

function digitCount(text: string, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) if (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) count += 1;
  return count;
}

// A national number with a trunk 0 or an international one, in spaced groups, then "-" and 1-5 digits.
const DIN_EXTENSION = /-\d{1,5}$/;
const TRUNK_OR_PLUS_THEN_SPACE = new RegExp(String.raw`^(?:\+|0)\d+${SPACE}`);

/** The phone numbers of a run: the whole, or (with `split`) two numbers side by side. */
function phonesInRun(text: string, masked: string, columns: TableColumns, runStart: number, run: string, split = true): TextRange[] {
  if (run.replace(/\D/g, '').length > MAX_RUN_DIGITS) return [];
  const accept = (start: number, end: number): TextRange | undefined => {
    // No plan has a number of fewer than 7 digits: refused before any context is read.
    if (digitCount(text, start, end) < 7) return undefined;
    const range = { start, end: extensionEnd(masked, end) };
    return isPhoneInContext(masked, text.slice(start, end), range.start, range.end, columns) ? range : undefined;
  };
  const whole = accept(runStart, runStart + run.length);
  if (whole) return [whole];
  // DIN 5008 writes an extension after a hyphen: "040 181818-4412", "+49 221 12345-67".
  const din = TRUNK_OR_PLUS_THEN_SPACE.test(run) ? DIN_EXTENSION.exec(run) : null;
  if (din) {
    // The extension is read as one: it announces the number, and nothing is glued after the whole.
    const end = runStart + run.length;
    if (digitCount(text, runStart, runStart + din.index) >= 7 && isPhoneInContext(masked, text.slice(runStart, runStart + din.index), runStart, end, columns))
      return [{ start: runStart, end }];
  }
  // Two numbers need seven digits each.
  if (!split || digitCount(run, 0, run.length) < 14) return [];
  for (const separator of separatorsOf(run)) {
    const first = accept(runStart, runStart + separator.start);
    const second = first && accept(runStart + separator.end, runStart + run.length);
    if (first && second) return [first, second];
  }
  return [];
}

const WIDE_GAP = new RegExp(String.raw`${SPACE}{2}`, 'g');

/**
 * A run whose groups are also joined by double spaces ("020  7946  0958", as scans and aligned
 * columns write them) is read whole first; when the whole is no phone, each part between the
 * double spaces is read on its own, as a run of its own (a table's next column is no part of it).
 */
function phonesInSpacedRun(text: string, masked: string, columns: TableColumns, runStart: number, run: string): TextRange[] {
  const wide = run.search(WIDE_GAP) !== -1;
  // A run with double spaces is one number or none; two numbers side by side are its parts.
  const whole = phonesInRun(text, masked, columns, runStart, run, !wide);
  if (whole.length > 0 || !wide) return whole;
  const found: TextRange[] = [];
  let from = 0;
  for (const gap of run.matchAll(WIDE_GAP)) {
    found.push(...phonesInRun(text, masked, columns, runStart + from, run.slice(from, gap.index)));
    from = gap.index + gap[0].length;
  }
  found.push(...phonesInRun(text, masked, columns, runStart + from, run.slice(from)));
  return found;
}

/**
 * Ranges of phone numbers, international (+/00 prefix, a length the country's plan allows) or
 * national. Context decides the doubtful ones: labels (order, serial, IP...), units and currencies
 * veto; phone words allow; without either, a numbering plan must have the number.
 */
export function findPhones(text: string): TextRange[] {
  const masked = maskNonPhoneNumerals(text);
  const columns = new TableColumns(masked);
  const found: TextRange[] = [];
  for (const m of matchesOf(RUN, masked)) {
    found.push(...phonesInSpacedRun(text, masked, columns, m.index, m[0]));
  }
  return found;
}
