// National identifiers with valid check digits, and look-alikes of the same shape that fail them.
// A candidate is built with the kind's structure and its check characters are searched for: the
// validators (domain/privacy/validators, tested on published examples) decide, so no check-digit
// algorithm is written twice.
import { type NationalIdKind, compactNationalId, isValidNationalId } from '../../domain/privacy/validators/national-id';
import type { Rng } from './rng';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

/** The first completion of `body` (in the order of `alphabet`, from a random start) that the validator accepts. */
function complete(rng: Rng, kind: NationalIdKind, body: (check: string) => string, alphabet: readonly string[]): string | null {
  const start = rng.int(0, alphabet.length - 1);
  for (let i = 0; i < alphabet.length; i++) {
    const value = body(alphabet[(start + i) % alphabet.length]);
    if (isValidNationalId(kind, value)) return value;
  }
  return null;
}

const twoDigits = [...Array(100).keys()].map((n) => String(n).padStart(2, '0'));
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Candidate builders in compact form; null when this draw has no valid completion (drawn again). */
const BUILD: Record<NationalIdKind, (rng: Rng) => string | null> = {
  de_steuer_id: (rng) => {
    // Nine distinct digits, one of them twice, never 0 first.
    const distinct = rng.shuffle([...DIGITS]).slice(0, 9);
    const ten = rng.shuffle([...distinct, rng.pick(distinct)]).join('');
    return ten[0] === '0' ? null : complete(rng, 'de_steuer_id', (c) => ten + c, [...DIGITS]);
  },
  fr_nir: (rng) => {
    const dept = rng.chance(0.05) ? rng.pick(['2A', '2B']) : pad(rng.int(1, 95), 2).replace(/^20$/, '21');
    const body = `${rng.int(1, 2)}${pad(rng.int(40, 99), 2)}${pad(rng.int(1, 12), 2)}${dept}${pad(rng.int(1, 990), 3)}${pad(rng.int(1, 999), 3)}`;
    return complete(rng, 'fr_nir', (c) => body + c, twoDigits);
  },
  it_codice_fiscale: (rng) => {
    const day = rng.int(1, 28) + (rng.chance(0.5) ? 40 : 0);
    const place = rng.pick(['H501', 'F205', 'A944', 'L219', 'G273', 'F839', 'D969', 'L736', 'C351']);
    const body = `${rng.letters(3, 'BCDFGLMNPRSTVZ')}${rng.letters(3, 'BCDFGLMNPRSTVZ')}${pad(rng.int(50, 99), 2)}${rng.pick([...'ABCDEHLMPRST'])}${pad(day, 2)}${place}`;
    return complete(rng, 'it_codice_fiscale', (c) => body + c, [...LETTERS]);
  },
  nl_bsn: (rng) => {
    const body = `${rng.int(1, 9)}${rng.digits(7)}`;
    return complete(rng, 'nl_bsn', (c) => body + c, [...DIGITS]);
  },
  pt_nif: (rng) => {
    const body = `${rng.int(1, 2)}${rng.digits(7)}`;
    return complete(rng, 'pt_nif', (c) => body + c, [...DIGITS]);
  },
  mx_curp: (rng) => {
    const born2000s = rng.chance(0.3);
    const body = `${rng.letters(1, 'BCDFGHLMNPRSTVZ')}${rng.letters(1, 'AEIOU')}${rng.letters(2, 'BCDFGHLMNPRSTVZ')}${pad(born2000s ? rng.int(0, 6) : rng.int(60, 99), 2)}${pad(rng.int(1, 12), 2)}${pad(rng.int(1, 28), 2)}${rng.pick(['H', 'M'])}${rng.pick(['DF', 'JC', 'NL', 'MC', 'PL', 'GT', 'VZ', 'YN', 'QT'])}${rng.letters(3, 'BCDFGHLMNPRSTVZ')}${born2000s ? rng.letters(1) : rng.digits(1)}`;
    return complete(rng, 'mx_curp', (c) => body + c, [...DIGITS]);
  },
  in_aadhaar: (rng) => {
    const body = `${rng.int(2, 9)}${rng.digits(10)}`;
    return complete(rng, 'in_aadhaar', (c) => body + c, [...DIGITS]);
  },
  es_dni: (rng) => {
    const body = pad(rng.int(1_000_000, 79_999_999), 8);
    return complete(rng, 'es_dni', (c) => body + c, [...LETTERS]);
  },
  es_nie: (rng) => {
    const body = `${rng.pick(['X', 'Y', 'Z'])}${rng.digits(7)}`;
    return complete(rng, 'es_nie', (c) => body + c, [...LETTERS]);
  },
  br_cpf: (rng) => {
    const body = rng.digits(9);
    return complete(rng, 'br_cpf', (c) => body + c, twoDigits);
  },
  uk_nino: (rng) => {
    const value = `${rng.letters(1, 'ABCEGHJKLMNPRSTWXYZ')}${rng.letters(1, 'ABCEGHJKLMNPRSTWXYZ')}${rng.digits(6)}${rng.pick(['A', 'B', 'C', 'D'])}`;
    return isValidNationalId('uk_nino', value) ? value : null;
  },
  us_ssn: (rng) => {
    const value = `${pad(rng.int(1, 899), 3)}${pad(rng.int(1, 99), 2)}${pad(rng.int(1, 9999), 4)}`;
    return isValidNationalId('us_ssn', value) ? value : null;
  },
};

/** A valid identifier of `kind`, compact. */
export function validId(rng: Rng, kind: NationalIdKind): string {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const value = BUILD[kind](rng);
    if (value !== null) return value;
  }
  throw new Error(`no valid ${kind} in 1000 draws`);
}

/**
 * Identifier kinds with a check digit. The US SSN and the UK NINO have none: nearly any nine digits
 * or two letters, six digits and A-D are one, so a near miss of them is no look-alike.
 */
export const CHECKSUM_KINDS: readonly NationalIdKind[] = ['br_cpf', 'de_steuer_id', 'es_dni', 'es_nie', 'fr_nir', 'in_aadhaar', 'it_codice_fiscale', 'mx_curp', 'nl_bsn', 'pt_nif'];

/** True when a kind with a check digit accepts `value`. */
export function passesAnyChecksum(value: string): boolean {
  return CHECKSUM_KINDS.some((kind) => isValidNationalId(kind, value));
}

/** The same shape with one character changed until no kind with a check digit accepts it: a serial, not an id. */
export function invalidId(rng: Rng, kind: NationalIdKind): string {
  const valid = validId(rng, kind);
  for (let attempt = 0; attempt < 100; attempt++) {
    const at = rng.chance(0.6) ? valid.length - 1 : rng.int(1, valid.length - 1);
    const alphabet = /\d/.test(valid[at]) ? DIGITS : LETTERS;
    const changed = valid.slice(0, at) + rng.pick([...alphabet].filter((c) => c !== valid[at])) + valid.slice(at + 1);
    if (!passesAnyChecksum(changed)) return changed;
  }
  throw new Error(`no invalid ${kind} near ${valid}`);
}

/** Ways each kind is written: [form name, layout of the compact value]. */
export const ID_LAYOUTS: Record<NationalIdKind, ReadonlyArray<readonly [string, (c: string) => string]>> = {
  de_steuer_id: [
    ['compact', (c) => c],
    ['grouped_2_3_3_3', (c) => `${c.slice(0, 2)} ${c.slice(2, 5)} ${c.slice(5, 8)} ${c.slice(8)}`],
  ],
  fr_nir: [
    ['compact', (c) => c],
    ['spaced', (c) => `${c[0]} ${c.slice(1, 3)} ${c.slice(3, 5)} ${c.slice(5, 7)} ${c.slice(7, 10)} ${c.slice(10, 13)} ${c.slice(13)}`],
    ['spaced_nnbsp', (c) => [c[0], c.slice(1, 3), c.slice(3, 5), c.slice(5, 7), c.slice(7, 10), c.slice(10, 13), c.slice(13)].join('\u202f')],
  ],
  it_codice_fiscale: [
    ['upper', (c) => c],
    ['lower', (c) => c.toLowerCase()],
  ],
  nl_bsn: [
    ['compact', (c) => c],
    ['dotted_4_2_3', (c) => `${c.slice(0, 4)}.${c.slice(4, 6)}.${c.slice(6)}`],
    ['spaced_3_3_3', (c) => `${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`],
  ],
  pt_nif: [
    ['compact', (c) => c],
    ['spaced_3_3_3', (c) => `${c.slice(0, 3)} ${c.slice(3, 6)} ${c.slice(6)}`],
  ],
  mx_curp: [['compact', (c) => c]],
  in_aadhaar: [
    ['grouped_4_4_4', (c) => `${c.slice(0, 4)} ${c.slice(4, 8)} ${c.slice(8)}`],
    ['hyphen_4_4_4', (c) => `${c.slice(0, 4)}-${c.slice(4, 8)}-${c.slice(8)}`],
    ['compact', (c) => c],
  ],
  es_dni: [
    ['compact', (c) => c],
    ['dotted', (c) => `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}-${c[8]}`],
    ['hyphen', (c) => `${c.slice(0, 8)}-${c[8]}`],
  ],
  es_nie: [
    ['compact', (c) => c],
    ['hyphens', (c) => `${c[0]}-${c.slice(1, 8)}-${c[8]}`],
    ['spaces', (c) => `${c[0]} ${c.slice(1, 8)} ${c[8]}`],
  ],
  br_cpf: [
    ['compact', (c) => c],
    ['formatted', (c) => `${c.slice(0, 3)}.${c.slice(3, 6)}.${c.slice(6, 9)}-${c.slice(9)}`],
  ],
  uk_nino: [
    ['spaced', (c) => `${c.slice(0, 2)} ${c.slice(2, 4)} ${c.slice(4, 6)} ${c.slice(6, 8)} ${c[8]}`],
    ['compact', (c) => c],
  ],
  us_ssn: [
    ['hyphens', (c) => `${c.slice(0, 3)}-${c.slice(3, 5)}-${c.slice(5)}`],
    ['spaces', (c) => `${c.slice(0, 3)} ${c.slice(3, 5)} ${c.slice(5)}`],
  ],
};

/** A valid id of `kind` written in one of its layouts, and the layout's name. */
export function writtenId(rng: Rng, kind: NationalIdKind, valid = true): { value: string; form: string } {
  const compact = valid ? validId(rng, kind) : invalidId(rng, kind);
  const [form, layout] = rng.pick(ID_LAYOUTS[kind]);
  const value = layout(compact);
  if (compactNationalId(value) !== compact.toUpperCase()) throw new Error(`layout ${kind}/${form} lost characters`);
  return { value, form: `${kind}_${form}` };
}
