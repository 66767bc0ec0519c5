import { type TextRange, isWordChar, matchesOf } from './text-range';

// Local part: letters/digits of any script plus the symbols people really use (dots, plus tags,
// underscores, hyphens, percent, inner apostrophes as in o'neill). Quoted local parts are not supported.
const LOCAL = String.raw`[\p{L}\p{N}_%+\-]+(?:[.'][\p{L}\p{N}_%+\-]+)*`;
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}\-]{0,61}[\p{L}\p{N}])?`;
// A top-level domain is letters (any script, so IDN TLDs such as .рф qualify) or punycode. Requiring
// letters rules out version strings (lodash@4.17.21) and a mandatory dot rules out user@localhost.
const TLD = String.raw`(?:xn--[a-z0-9\-]{2,59}|\p{L}{2,63})`;
const BEFORE = String.raw`(?<![\p{L}\p{N}_%+.'\-])`;
const AFTER = String.raw`(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])`;

const PLAIN = new RegExp(String.raw`${BEFORE}${LOCAL}@(?:${LABEL}\.)+${TLD}${AFTER}`, 'giu');

// "juan.perez [at] acme [dot] es", "(arroba)", "{at}": people obfuscate to dodge scrapers, but the
// address is as personal as the plain one. Bare "at"/"dot" words are too ambiguous and are not matched.
const OBF_AT = String.raw`\s?[[({]\s?(?:at|arroba)\s?[\])}]\s?`;
const OBF_DOT = String.raw`(?:\s?[[({]\s?(?:dot|punto)\s?[\])}]\s?|\.)`;
const OBFUSCATED = new RegExp(String.raw`${BEFORE}${LOCAL}${OBF_AT}(?:${LABEL}${OBF_DOT})+${TLD}${AFTER}`, 'giu');

// What each pattern cannot match without: a text lacking it skips the pattern's scan of every word.
const PATTERNS: ReadonlyArray<{ readonly pattern: RegExp; readonly needs: RegExp }> = [
  { pattern: PLAIN, needs: /@/ },
  { pattern: OBFUSCATED, needs: /[[({]\s?(?:at|arroba)\s?[\])}]/iu },
];

// Asset names (logo@2x.png), source files and archives look like addresses but end in a file
// extension that is not a TLD anyone gives out mail on.
const FILE_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'bmp',
  'tif',
  'tiff',
  'ico',
  'heic',
  'pdf',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'csv',
  'txt',
  'log',
  'json',
  'xml',
  'yml',
  'yaml',
  'js',
  'ts',
  'mjs',
  'css',
  'html',
  'htm',
  'zip',
  'gz',
  'tgz',
  'tar',
  'rar',
  'exe',
  'dll',
  'bin',
  'hex',
  'mp3',
  'mp4',
  'mov',
  'wav',
  'avi',
]);

/** RFC 5321's longest address; a longer match is not a mailbox (and bounds what a chunk boundary must keep whole). */
export const LONGEST_EMAIL_MATCH = 254;

/** The last label of a matched address (after its last dot, bracket or space). */
function tldOf(value: string): string {
  let start = value.length;
  while (start > 0 && !/[.\])}\s]/u.test(value[start - 1])) start -= 1;
  return value.slice(start).toLowerCase();
}

/** Ranges of e-mail addresses, plain or with bracketed [at]/[dot] obfuscation. */
export function findEmails(text: string): TextRange[] {
  const found: TextRange[] = [];
  for (const { pattern, needs } of PATTERNS) {
    if (!needs.test(text)) continue;
    for (const m of matchesOf(pattern, text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (m[0].length > LONGEST_EMAIL_MATCH) continue;
      if (FILE_EXTENSIONS.has(tldOf(m[0]))) continue;
      // git@github.com:org/repo.git is a remote, not a mailbox.
      if (text[end] === ':' && isWordChar(text[end + 1])) continue;
      found.push({ start, end });
    }
  }
  return found;
}
