// Payment card numbers with a valid Luhn digit, of the issuers and lengths in circulation, grouped
// the ways statements, receipts and people group them.
import { passesLuhn } from '../../domain/privacy/pii';
import type { Rng } from './rng';

/** Issuer prefix, length and how printed cards group the digits. */
const ISSUERS: ReadonlyArray<{ readonly issuer: string; readonly prefixes: readonly string[]; readonly length: number; readonly groups: readonly number[] }> = [
  { issuer: 'visa16', prefixes: ['4'], length: 16, groups: [4, 4, 4, 4] },
  { issuer: 'visa19', prefixes: ['4'], length: 19, groups: [4, 4, 4, 4, 3] },
  { issuer: 'mastercard', prefixes: ['51', '53', '55', '2221', '2720'], length: 16, groups: [4, 4, 4, 4] },
  { issuer: 'amex', prefixes: ['34', '37'], length: 15, groups: [4, 6, 5] },
  { issuer: 'diners14', prefixes: ['36', '38'], length: 14, groups: [4, 6, 4] },
  { issuer: 'discover', prefixes: ['6011', '65'], length: 16, groups: [4, 4, 4, 4] },
  { issuer: 'jcb', prefixes: ['3528', '3566', '3589'], length: 16, groups: [4, 4, 4, 4] },
  { issuer: 'unionpay19', prefixes: ['62'], length: 19, groups: [4, 4, 4, 4, 3] },
  { issuer: 'maestro18', prefixes: ['6759', '5018'], length: 18, groups: [4, 4, 4, 4, 2] },
  { issuer: 'maestro19', prefixes: ['6759', '6761'], length: 19, groups: [4, 4, 4, 4, 3] },
];

/** Digits of a card of `issuer` whose Luhn check is `valid`. */
function cardDigits(rng: Rng, prefix: string, length: number, valid: boolean): string {
  const body = prefix + rng.digits(length - prefix.length - 1);
  const checks = [...'0123456789'].filter((d) => passesLuhn(body + d) === valid);
  return body + rng.pick(checks);
}

const SEPARATORS: ReadonlyArray<readonly [string, string]> = [
  ['spaces', ' '],
  ['hyphens', '-'],
  ['dots', '.'],
  ['nbsp', '\u00a0'],
  ['narrow_nbsp', '\u202f'],
  ['compact', ''],
];

function grouped(digits: string, groups: readonly number[], separator: string): string {
  const out: string[] = [];
  let at = 0;
  for (const size of groups) {
    out.push(digits.slice(at, at + size));
    at += size;
  }
  return out.join(separator);
}

export interface WrittenCard {
  readonly form: string;
  readonly value: string;
  readonly digits: string;
}

/** A card number (Luhn-valid unless `valid` is false: then a serial that looks like one). */
export function writtenCard(rng: Rng, valid = true): WrittenCard {
  const { issuer, prefixes, length, groups } = rng.pick(ISSUERS);
  const digits = cardDigits(rng, rng.pick(prefixes), length, valid);
  const [sepName, separator] = rng.pick(SEPARATORS);
  return { form: `${issuer}_${sepName}`, value: grouped(digits, groups, separator), digits };
}
