import { NATIONAL_IDS, NATIONAL_ID_KINDS, type NationalIdKind, isValidNationalId } from '../validators/national-id';
import { endsWithThingLabel, governingWords, mentionsIdLabel } from './context-words';
import type { TableColumns } from './table-columns';
import { type TextRange, isWordChar, matchesOf } from './text-range';

// One reader for identifiers written in any grouping (docs/decisions/pii-ids-in-any-grouping.md):
// people split an identifier with spaces of any width, dots, hyphens or slashes wherever they like
// (57 142 069 382, 1-67-08-13-055-021-11, LOAM 751225 HNLPRR 06). A run of upper-case letter and
// digit groups joined by single separators is read once; each stretch of its groups short enough
// to be an identifier is compacted and judged by the identifiers' validators.
const SEPARATOR = String.raw`[ .\-/\u00a0\u2007\u2009\u202f]`;
// Separators are mandatory between groups and never a group character: one way to match a run.
// A run never starts after a digit and a separator: "+34 612 345 678" is read whole or not at all.
const RUN = new RegExp(String.raw`(?<![\p{L}\p{N}_@=+]|\d${SEPARATOR})[A-Z\d]+(?:${SEPARATOR}[A-Z\d]+)*`, 'gu');
const GROUP = /[A-Z\d]+/g;
const SEPARATORS = new RegExp(SEPARATOR, 'gu');

/**
 * The most characters an identifier has compacted (a CURP, 18) and the most groups it is written in
 * (a NIR's seven, and one spare), unless every group is one character: an OCR'd scan spaces each
 * letter ("Z 7 3 6 1 0 2 9 E"), still at most MAX_COMPACT groups. The checks decide as for any
 * grouping: a weak one needs the identifier's label.
 */
const MAX_COMPACT = 18;
const MAX_GROUPS = 8;

/** Each kind's compact shape: a stretch is asked only about the kinds its shape fits. */
const SHAPES: Readonly<Record<NationalIdKind, RegExp>> = {
  es_dni: /^\d{8}[A-Z]$/,
  es_nie: /^[XYZ]\d{7}[A-Z]$/,
  uk_nino: /^[A-Z]{2}\d{6}[A-D]$/,
  us_ssn: /^\d{9}$/,
  nl_bsn: /^\d{9}$/,
  pt_nif: /^\d{9}$/,
  br_cpf: /^\d{11}$/,
  de_steuer_id: /^\d{11}$/,
  in_aadhaar: /^\d{12}$/,
  fr_nir: /^[12]\d{4}(?:\d{2}|2[AB])\d{8}$/,
  it_codice_fiscale: /^[A-Z]{6}[\dL-NP-V]{2}[A-EHLMPR-T][\dL-NP-V]{2}[A-Z][\dL-NP-V]{3}[A-Z]$/,
  mx_curp: /^[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z\d]\d$/,
};

/** The kinds of each compact length (the validators' own lengths), and the shortest run that holds one in two groups. */
const KINDS_BY_LENGTH: ReadonlyMap<number, readonly NationalIdKind[]> = (() => {
  const byLength = new Map<number, NationalIdKind[]>();
  for (const kind of NATIONAL_ID_KINDS) {
    const [min, max] = NATIONAL_IDS[kind].compactLength;
    for (let length = min; length <= max; length++) byLength.set(length, [...(byLength.get(length) ?? []), kind]);
  }
  return byLength;
})();
const MIN_RUN = Math.min(...KINDS_BY_LENGTH.keys()) + 1;

/**
 * Kinds whose check chance does not pass, so that a grouping nobody else writes is enough: a check
 * letter over eight digits (DNI, NIE), a check over sixteen or eighteen letters and digits (codice
 * fiscale, CURP), a two-digit mod-97 key (NIR). The others (one check digit over digits, or none)
 * are, in an unusual grouping, as likely a reading, a serial or a phone number: only after an
 * identifier's label.
 */
const STRONG: ReadonlySet<NationalIdKind> = new Set(['es_dni', 'es_nie', 'it_codice_fiscale', 'mx_curp', 'fr_nir']);

const SELF_EVIDENT: ReadonlySet<NationalIdKind> = new Set(['it_codice_fiscale', 'mx_curp']);

const isDigits = (group: string) => /^\d+$/.test(group);

export interface GroupedIdOptions {
  /** The kinds read (those of the formats asked for). */
  readonly kinds: readonly NationalIdKind[];
  /** How far before a value its label is read. */
  readonly reach: number;
  /** The text's table headers: a cell's column header is its label. */
  readonly columns: TableColumns;
  /** Whether a value of `kind` may be claimed at `range` (the label-names-its-kind rule). */
  readonly claimable: (kind: NationalIdKind, range: TextRange) => boolean;
}

interface Group {
  readonly text: string;
  readonly start: number;
}

function groupsOf(run: string, runStart: number, text: string): Group[] {
  const groups = [...run.matchAll(GROUP)].map((m) => ({ text: m[0], start: runStart + m.index }));
  // "Steuer": a run's last group glued to lower-case letters is part of a word.
  const last = groups[groups.length - 1];
  if (isWordChar(text[last.start + last.text.length])) groups.pop();
  return groups;
}

/**
 * Identifiers in runs of two or more separated groups, as ranges. Linear: a run is read once, and
 * from each group at most MAX_GROUPS stretches of at most MAX_COMPACT characters are judged.
 */
export function findGroupedIds(text: string, options: GroupedIdOptions): TextRange[] {
  const found: TextRange[] = [];
  for (const m of matchesOf(RUN, text)) {
    // Most runs are a capitalised word or a lone number: too short or digitless to hold an identifier.
    if (m[0].length < MIN_RUN || !/\d/.test(m[0])) continue;
    // Digit groups only: no stretch may start or end inside, so the whole run is the one candidate.
    if (!/[A-Z]/.test(m[0])) {
      const compact = m[0].replace(SEPARATORS, '');
      const end = m.index + m[0].length;
      const separators = m[0].length - compact.length;
      const letterSpaced = compact.length === separators + 1;
      if (separators > 0 && (separators < MAX_GROUPS || letterSpaced) && compact.length <= MAX_COMPACT && !isWordChar(text[end]) && judge(text, compact, m.index, end, options))
        found.push({ start: m.index, end });
      continue;
    }
    const groups = groupsOf(m[0], m.index, text);
    let takenUpTo = -1;
    for (let i = 0; i < groups.length; i++) {
      // A stretch never starts or ends inside a run of digit groups: it would be a slice of a longer number.
      if (groups[i].start < takenUpTo || (i > 0 && isDigits(groups[i - 1].text) && isDigits(groups[i].text))) continue;
      let compact = groups[i].text;
      let letterSpaced = compact.length === 1;
      for (let j = i + 1; j < groups.length && (j - i < MAX_GROUPS || letterSpaced); j++) {
        compact += groups[j].text;
        letterSpaced &&= groups[j].text.length === 1;
        if (compact.length > MAX_COMPACT) break;
        if (j + 1 < groups.length && isDigits(groups[j].text) && isDigits(groups[j + 1].text)) continue;
        const end = groups[j].start + groups[j].text.length;
        if (judge(text, compact, groups[i].start, end, options)) {
          found.push({ start: groups[i].start, end });
          takenUpTo = end;
          break;
        }
      }
    }
  }
  return found;
}

function judge(text: string, compact: string, start: number, end: number, options: GroupedIdOptions): boolean {
  const shaped = (KINDS_BY_LENGTH.get(compact.length) ?? []).filter((kind) => SHAPES[kind].test(compact) && options.kinds.includes(kind));
  if (shaped.length === 0) return false;
  const words = governingWords(text, start, end, options.columns, options.reach);
  const labelled = mentionsIdLabel(words);
  // A thing's label ("Fra:" is an invoice's in Spanish and a name in a chat) vetoes all but the
  // checks over sixteen or more letters and digits, which no thing's number passes by chance.
  const thingLabelled = !labelled && endsWithThingLabel(words);
  const admissible = (kind: NationalIdKind) => labelled || (STRONG.has(kind) && !(thingLabelled && !SELF_EVIDENT.has(kind)));
  // The context first: most unlabelled nine-digit groups need no validator at all.
  return shaped.some((kind) => admissible(kind) && isValidNationalId(kind, compact) && options.claimable(kind, { start, end }));
}
