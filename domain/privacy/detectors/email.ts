import { parse as parseHostname } from 'tldts';
import { type TextRange, isWordChar, matchesOf } from './text-range';

// Local part: letters/digits of any script plus the symbols people really use (dots, plus tags,
// underscores, hyphens, percent, inner apostrophes as in o'neill). Quoted local parts are not supported.
const LOCAL_CHARS = String.raw`[\p{L}\p{N}_%+\-]`;
const LOCAL = String.raw`${LOCAL_CHARS}+(?:[.'\u2019]${LOCAL_CHARS}+)*`;
// A domain label; a hard-wrapped mail may break one after a hyphen ("rodamientos-\nlevante.es").
// Label lengths (at most 63) are checked in code.
const LABEL = String.raw`[\p{L}\p{N}](?:(?:[\p{L}\p{N}]|-(?:\r?\n)?)*[\p{L}\p{N}])?`;
// A top-level domain is letters (any script, so IDN TLDs such as .рф qualify) or punycode; which
// ones exist is checked in code (IANA's list).
const TLD = String.raw`(?:xn--[a-z0-9\-]{2,59}|\p{L}{2,63})`;
const BEFORE = String.raw`(?<![\p{L}\p{N}_%+.'\u2019\-])`;
const AFTER = String.raw`(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])`;
// One line break where mail clients wrap a long address: before or after the "@", after a dot.
const BREAK = String.raw`\r?\n`;

// "x@acme.es", "x @ acme.es", "x@\nacme.es", "x@acme.\nes": one space or one line break on either
// side of the "@".
// A mail client may also wrap a long local part after one of its dots ("jose.ramirez.\nsoler@...");
// findEmails keeps that join only when the line's part looks like a dotted local part itself.
const WRAPPED_LOCAL = String.raw`${LOCAL_CHARS}+(?:(?:[.'\u2019]|\.${BREAK})${LOCAL_CHARS}+)*`;
// No match starts after a word's dot and a break: the match of that word takes the wrap, so a
// chain of wrapped lines is scanned once.
const PLAIN_DOMAIN = String.raw`(?: |${BREAK})?@(?: |${BREAK})?(?:${LABEL}\.(?:${BREAK})?)+${TLD}${AFTER}`;
const PLAIN = new RegExp(String.raw`(?<![\p{L}\p{N}_%+.'\u2019\-]|[\p{L}\p{N}_]\.${BREAK})${WRAPPED_LOCAL}${PLAIN_DOMAIN}`, 'giu');
/** The address on the next line when a wrap is refused: read from the break, without a wrap of its own. */
const PLAIN_UNWRAPPED = new RegExp(String.raw`${BEFORE}${LOCAL}${PLAIN_DOMAIN}`, 'iuy');

// The words people write for "@" and "." to dodge scrapers, in the languages the redactor reads.
// "ät" is how German writers spell the English "at" as it sounds.
const AT_WORDS = 'at|ät|arroba|arobase|chiocciola|apenstaartje|klammeraffe';
const DOT_WORDS = 'dot|punto|ponto|punkt|point|punt';

// "juan.perez [at] acme [dot] es", "(arroba)", "{at}", "<at>": bracketed words, the dots plain or bracketed too.
const OBF_AT = String.raw` ?[[({<] ?(?:${AT_WORDS}) ?[\])}>] ?`;
const OBF_DOT = String.raw`(?: ?[[({<] ?(?:${DOT_WORDS}) ?[\])}>] ?|\.)`;
const BRACKETED = new RegExp(String.raw`${BEFORE}${LOCAL}${OBF_AT}(?:${LABEL}${OBF_DOT})+${TLD}${AFTER}`, 'giu');

// "maria dot lopez at acme dot com", "mariana ponto costa arroba hotmail ponto com": every "@" and
// "." of the domain spelled out between single spaces; the local part's dots spelled or written
// ("andrea.gil arroba gmail punto com"). A word right after a spelled dot is inside an address, so
// no match starts there (one start per address: the scan stays linear).
const WORD = LOCAL;
const WORD_LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}\-]*[\p{L}\p{N}])?`;
const SPELLED = new RegExp(
  String.raw`(?<![\p{L}\p{N}_%+.'\u2019\-]|(?<!\p{L})(?:${DOT_WORDS}) )${WORD}(?: (?:${DOT_WORDS}) ${WORD})* (?:${AT_WORDS}) ${WORD_LABEL}(?: (?:${DOT_WORDS}) ${WORD_LABEL})+(?![\p{L}\p{N}_\-])`,
  'giu',
);

// An OCR'd scan spaces the "@" on both sides and a dot of the domain before it, or on both sides
// ("inkoop @ pompen-twente .nl", "a @ acme . co . uk"): with the "@" spaced so, such a dot is one
// too. A dot with a space after it alone ends a sentence ("see you @ home. Best regards").
// The local part's dots may be spaced on both sides as well ("markus . riedl @ ..."); no match
// starts right after such a dot, so a chain of spaced words is scanned once.
const OCR_LOCAL = String.raw`${LOCAL_CHARS}+(?:(?: \. |[.'\u2019])${LOCAL_CHARS}+)*`;
const OCR_SPACED = new RegExp(String.raw`(?<![\p{L}\p{N}_%+.'\u2019\-]| \. )${OCR_LOCAL} @ (?:${LABEL}(?: \. ?|\.))+${TLD}${AFTER}`, 'giu');

type Form = 'plain' | 'bracketed' | 'spelled' | 'ocr_spaced';

// What each pattern cannot match without: a text lacking it skips the pattern's scan of every word.
const PATTERNS: ReadonlyArray<{ readonly form: Form; readonly pattern: RegExp; readonly needs: RegExp }> = [
  { form: 'plain', pattern: PLAIN, needs: /@/ },
  { form: 'bracketed', pattern: BRACKETED, needs: new RegExp(String.raw`[[({<] ?(?:${AT_WORDS}) ?[\])}>]`, 'iu') },
  { form: 'spelled', pattern: SPELLED, needs: new RegExp(String.raw`(?<!\p{L})(?:${DOT_WORDS}) `, 'iu') },
];

// Asset names (logo@2x.png), source files and archives look like addresses but end in a file
// extension; .zip and .mov are TLDs too, and still file names far more often than mailboxes.
const FILE_EXTENSIONS = new Set(['zip', 'mov']);

// The names reserved for private and documentation use (RFC 2606, 6761, 6762; ICANN's .internal)
// that mailboxes inside a company or a manual use.
const PRIVATE_USE_NAMES: ReadonlySet<string> = new Set(['example', 'test', 'local', 'internal', 'lan', 'corp', 'home', 'onion']);

/** RFC 5321's longest address, plus its words when spelled out; a longer match is not a mailbox (and bounds what a chunk boundary must keep whole). */
export const LONGEST_EMAIL_MATCH = 320;

// The "@" and the domain's dots of each form, compiled once (they are asked about every match).
const BRACKETED_AT = new RegExp(OBF_AT, 'iu');
const SPELLED_AT = new RegExp(String.raw` (?:${AT_WORDS}) `, 'iu');
const SPELLED_DOTS = new RegExp(String.raw` (?:${DOT_WORDS}) `, 'giu');
const DOMAIN_DOT: Readonly<Record<Form, RegExp>> = {
  plain: /\./u,
  bracketed: new RegExp(OBF_DOT, 'iu'),
  spelled: new RegExp(SPELLED_DOTS.source, 'iu'),
  ocr_spaced: / ?\. ?/u,
};

/** The domain's labels (dots, bracketed and spelled dots and line breaks removed), or null when one is too long. */
function labelsOf(domain: string, form: Form): string[] | null {
  const labels = domain
    .replace(/-\r?\n/g, '-')
    .split(DOMAIN_DOT[form])
    .map((label) => label.replace(/\r?\n/g, ''));
  return labels.every((label) => label.length > 0 && label.length <= 63) ? labels : null;
}

/**
 * Whether a domain (its labels) ends in a TLD that exists: a public suffix of the ICANN section of
 * the Public Suffix List (tldts, which DMARC alignment reads too: every delegated TLD, IDN ones in
 * their Unicode form; under .za, whose registry takes names at the second level only, those), a
 * punycode TLD, or a private-use name. Code such as `v = m.inv@acc.vec` ends in no TLD, so it is
 * not an address.
 */
function endsInTld(labels: readonly string[]): boolean {
  const tld = labels[labels.length - 1].toLowerCase();
  if (FILE_EXTENSIONS.has(tld)) return false;
  if (tld.startsWith('xn--') || PRIVATE_USE_NAMES.has(tld)) return true;
  return parseHostname(labels.join('.').toLowerCase(), { extractHostname: false, validateHostname: false }).isIcann === true;
}

/** Where the "@" (or its bracketed or spelled word) ends in a match, and where the domain starts. */
function domainStart(value: string, form: Form): number {
  if (form === 'plain' || form === 'ocr_spaced') {
    const at = value.indexOf('@');
    let start = at + 1;
    while (start < value.length && /\s/.test(value[start])) start += 1;
    return start;
  }
  const at = (form === 'bracketed' ? BRACKETED_AT : SPELLED_AT).exec(value);
  return at ? at.index + at[0].length : -1;
}

/**
 * The end of the address in a match: the whole match when its domain ends in a TLD; when the
 * match took a line break, the part before the break if that is a whole address already
 * ("a@b.com.\nThanks" is a@b.com and a sentence); when a spelled domain goes on past its TLD
 * ("... punto com punto de consigna"), the labels up to the last TLD. -1: no address.
 */
function addressEnd(value: string, form: Form): number {
  const start = domainStart(value, form);
  if (start < 0) return -1;
  const domain = value.slice(start);
  const lineBreak = form === 'plain' ? domain.search(/\r?\n/) : -1;
  if (lineBreak > 0) {
    const before = domain.slice(0, lineBreak).replace(/[.-]$/, '');
    const beforeLabels = labelsOf(before, form);
    if (beforeLabels && beforeLabels.length >= 2 && endsInTld(beforeLabels)) return start + before.length;
  }
  const labels = labelsOf(domain, form);
  if (!labels) return -1;
  if (endsInTld(labels)) return value.length;
  if (form !== 'spelled') return -1;
  // Spelled words: drop labels from the end while at least two are left and the last is no TLD.
  const cuts = [...domain.matchAll(SPELLED_DOTS)].map((m) => m.index);
  for (let keep = labels.length - 1; keep >= 2; keep--) if (endsInTld(labels.slice(0, keep))) return start + cuts[keep - 1];
  return -1;
}

// "jose.ramirez." before a wrap: two dotted parts of two characters or more ("e.g.", "etc." and a
// sentence's last word are not).
const LOCAL_BEFORE_WRAP = /^[^.\s]{2,}(?:\.[^.\s]{2,})+\.$/u;

/**
 * Where to look again when a plain match joined a line's end to a local part on the next line
 * that the line's end is not part of ("the office.\nmaria@acme.es"): after the break; -1 when the
 * match is kept as it is.
 */
function unlikelyLocalWrap(value: string): number {
  const at = value.indexOf('@');
  // The local part without the space or break a wrap may leave before the "@" ("priyar\n@icloud.com").
  const local = value.slice(0, at < 0 ? value.length : at).replace(/(?: |\r?\n)$/, '');
  const wrap = local.lastIndexOf('\n');
  if (wrap < 0) return -1;
  const firstBreak = local.search(/\r?\n/);
  return local.indexOf('\n') === wrap && LOCAL_BEFORE_WRAP.test(local.slice(0, firstBreak)) ? -1 : wrap + 1;
}

/** How far back on its line the code around an address is read. */
const CODE_REACH = 80;
// An assignment, a call's parenthesis (glued to its name: "(" alone is prose) or a return right before: the value is an expression.
const CODE_BEFORE = /(?:=|[\p{L}\p{N}_]\(|(?<!\p{L})return) ?$/u;
// The TLDs of the mailboxes people write for decades (and every two-letter country code).
const LEGACY_TLD = /\.(?:com|net|org|edu|gov|mil|int|[a-z]{2})$/i;

/**
 * `q.top@heap.next` in `res = q.top@heap.next`: a matrix product or decorator of two dotted names
 * in code. .next, .top, .app... are TLDs too, so a name ending in one of the newer TLDs is read as
 * code inside a backtick span or right after an assignment, a call's parenthesis or a return; an
 * address at .com or a country's TLD is an address everywhere.
 */
function isCodeExpression(text: string, start: number, address: string): boolean {
  if (LEGACY_TLD.test(address.replace(/\s/g, ''))) return false;
  // Its line, at most CODE_REACH back (searched within that reach: a text without line breaks is not read whole per address).
  const reach = text.slice(Math.max(0, start - CODE_REACH), start);
  const before = reach.slice(reach.lastIndexOf('\n') + 1);
  return CODE_BEFORE.test(before) || (before.split('`').length - 1) % 2 === 1;
}

/**
 * The stretches of the text an OCR-spaced address may lie in: LONGEST_EMAIL_MATCH on either side
 * of each " @ ", merged. The OCR form is read there only, not from every word of the text.
 */
function spacedAtRegions(text: string): Array<readonly [from: number, to: number]> {
  const regions: Array<[number, number]> = [];
  for (let at = text.indexOf(' @ '); at !== -1; at = text.indexOf(' @ ', at + 1)) {
    const [from, to] = [Math.max(0, at - LONGEST_EMAIL_MATCH), Math.min(text.length, at + LONGEST_EMAIL_MATCH)];
    const last = regions[regions.length - 1];
    if (last && from <= last[1]) last[1] = to;
    else regions.push([from, to]);
  }
  return regions;
}

/** Ranges of e-mail addresses: plain, wrapped across a line, with spaces around the "@", bracketed or spelled out. */
export function findEmails(text: string): TextRange[] {
  const found: TextRange[] = [];
  // Names read as code once are code wherever the text repeats them (a log line quoted again alone).
  const code = new Set<string>();
  /** Whether [start, end) is taken: as an address, or as code, which is no address. */
  const take = (start: number, end: number, form: Form): boolean => {
    // git@github.com:org/repo.git is a remote, not a mailbox.
    if (text[end] === ':' && isWordChar(text[end + 1])) return false;
    const value = text.slice(start, end);
    if (form === 'plain' && isCodeExpression(text, start, value)) code.add(value.toLowerCase());
    else found.push({ start, end });
    return true;
  };
  for (const { form, pattern, needs } of PATTERNS) {
    if (!needs.test(text)) continue;
    const re = new RegExp(pattern.source, pattern.flags);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const start = m.index;
      const wrap = form === 'plain' ? unlikelyLocalWrap(m[0]) : -1;
      if (wrap >= 0) {
        PLAIN_UNWRAPPED.lastIndex = start + wrap;
        const next = PLAIN_UNWRAPPED.exec(text);
        const end = next ? addressEnd(next[0], 'plain') : -1;
        if (next && end > 0) take(next.index, next.index + end, 'plain');
        re.lastIndex = start + wrap + Math.max(end, 1);
        continue;
      }
      const end = m[0].length > LONGEST_EMAIL_MATCH ? -1 : addressEnd(m[0], form);
      if (end > 0 && take(start, start + end, form)) continue;
      // Not an address from here; one may start inside the match ("me at maria dot lopez at acme dot com").
      re.lastIndex = start + 1;
    }
  }
  for (const [from, to] of spacedAtRegions(text)) {
    // Three characters before the region for the pattern's look-behind, two after for its look-ahead.
    const offset = Math.max(0, from - 3);
    for (const m of matchesOf(OCR_SPACED, text.slice(offset, Math.min(text.length, to + 2)))) {
      const start = offset + m.index;
      const end = start < from || m[0].length > LONGEST_EMAIL_MATCH ? -1 : addressEnd(m[0], 'ocr_spaced');
      if (end > 0) found.push({ start, end: start + end });
    }
  }
  return code.size === 0 ? found : found.filter((r) => !code.has(text.slice(r.start, r.end).toLowerCase()));
}
