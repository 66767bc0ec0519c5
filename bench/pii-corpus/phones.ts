// Phone numbers in assigned ranges (libphonenumber decides, through the validator), written the
// ways people and apps write them.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { type CountryCode, readPhone } from '../../domain/privacy/validators/phone';
import type { Rng } from './rng';

/** National significant number shapes per country: a prefix and how many random digits follow. */
const SHAPES: Partial<Record<CountryCode, ReadonlyArray<readonly [prefix: string, rest: number]>>> = {
  DE: [
    ['151', 8],
    ['160', 7],
    ['171', 7],
    ['176', 8],
    ['30', 8],
    ['40', 8],
    ['89', 8],
    ['231', 7],
    ['221', 7],
    ['711', 7],
    ['6221', 6],
  ],
  AT: [
    ['664', 7],
    ['1', 7],
  ],
  CH: [
    ['79', 7],
    ['44', 7],
  ],
  ES: [
    ['6', 8],
    ['7', 8],
    ['91', 7],
    ['93', 7],
    ['96', 7],
  ],
  MX: [
    ['55', 8],
    ['33', 8],
    ['81', 8],
  ],
  FR: [
    ['6', 8],
    ['7', 8],
    ['1', 8],
    ['4', 8],
  ],
  BE: [
    ['47', 7],
    ['2', 7],
  ],
  IT: [
    ['33', 8],
    ['34', 8],
    ['2', 8],
    ['6', 8],
  ],
  PT: [
    ['91', 7],
    ['93', 7],
    ['96', 7],
    ['21', 7],
    ['22', 7],
  ],
  BR: [
    ['119', 8],
    ['219', 8],
    ['319', 8],
    ['11', 8],
  ],
  NL: [
    ['6', 8],
    ['20', 7],
    ['10', 7],
    ['30', 7],
  ],
  GB: [
    ['74', 8],
    ['75', 8],
    ['79', 8],
    ['20', 8],
    ['161', 7],
    ['113', 7],
  ],
  US: [
    ['415', 7],
    ['212', 7],
    ['312', 7],
    ['617', 7],
    ['206', 7],
    ['512', 7],
  ],
  IN: [
    ['98', 8],
    ['91', 8],
    ['70', 8],
    ['80', 8],
  ],
};

export interface PhoneNumberParts {
  readonly country: CountryCode;
  readonly e164: string;
  /** libphonenumber's groupings: "+49 231 4425039" and "0231 4425039". */
  readonly international: string;
  readonly national: string;
}

/** A number in an assigned range of `country`'s plan. */
export function validPhone(rng: Rng, country: CountryCode): PhoneNumberParts {
  const shapes = SHAPES[country];
  if (!shapes) throw new Error(`no phone shapes for ${country}`);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const [prefix, rest] = rng.pick(shapes);
    const parsed = parsePhoneNumberFromString(prefix + rng.digits(rest), country);
    if (!parsed || !parsed.isValid() || parsed.country !== country) continue;
    const reading = readPhone(parsed.number);
    if (!reading?.valid) continue;
    return { country, e164: parsed.number, international: parsed.formatInternational(), national: parsed.formatNational() };
  }
  throw new Error(`no valid ${country} number in 1000 draws`);
}

const NNBSP = '\u202f';
const NBSP = '\u00a0';

/** The national number's groups, the first one being the area code or mobile prefix as libphonenumber groups it. */
function nationalGroups(p: PhoneNumberParts): string[] {
  return p.national.replace(/[()]/g, '').split(/[\s-]+/);
}

/** Subscriber digits in pairs from the right, as DIN 5008 wrote German numbers: "4 42 50 39". */
function pairsFromRight(digits: string): string {
  const pairs: string[] = [];
  for (let end = digits.length; end > 0; end -= 2) pairs.unshift(digits.slice(Math.max(0, end - 2), end));
  return pairs.join(' ');
}

export interface WrittenPhone {
  readonly form: string;
  /** What is written in the text. */
  readonly value: string;
}

/** Ways a number is written in running text; each takes the parts and returns the written value. */
const LAYOUTS: ReadonlyArray<readonly [form: string, layout: (p: PhoneNumberParts) => string | null]> = [
  ['international', (p) => p.international],
  ['international_compact', (p) => p.e164],
  ['prefix_00', (p) => p.international.replace('+', '00')],
  ['national', (p) => p.national],
  ['national_compact', (p) => p.national.replace(/\D/g, '')],
  [
    'area_in_parentheses',
    (p) => {
      const [area, ...rest] = nationalGroups(p);
      return area.startsWith('0') || p.country === 'BR' || p.country === 'US' ? `(${area}) ${rest.join(p.country === 'BR' ? '-' : ' ')}` : null;
    },
  ],
  [
    'area_in_parentheses_pairs',
    (p) => {
      const [area, ...rest] = nationalGroups(p);
      return area.startsWith('0') ? `(${area}) ${pairsFromRight(rest.join(''))}` : null;
    },
  ],
  [
    'slash',
    (p) => {
      const [area, ...rest] = nationalGroups(p);
      return area.startsWith('0') ? `${area}/${rest.join('')}` : null;
    },
  ],
  [
    'slash_spaced',
    (p) => {
      const [area, ...rest] = nationalGroups(p);
      return area.startsWith('0') ? `${area} / ${rest.join(' ')}` : null;
    },
  ],
  ['dots', (p) => nationalGroups(p).join('.')],
  ['dots_international', (p) => p.international.replace(/ /g, '.')],
  ['hyphens', (p) => nationalGroups(p).join('-')],
  ['hyphens_international', (p) => p.international.replace(/ /g, '-')],
  ['narrow_nbsp', (p) => p.international.replace(/ /g, NNBSP)],
  ['nbsp_national', (p) => p.national.replace(/ /g, NBSP)],
  ['trunk_zero_in_parentheses', (p) => (/^0/.test(p.national) && p.country !== 'IT' ? p.international.replace(/^(\+\d+) /, '$1 (0)') : null)],
];

/** Extensions written after a number, in parentheses or not; the value includes them. */
const EXTENSIONS: Record<string, readonly string[]> = {
  en: ['(ext. {n})', 'ext. {n}', '(x{n})'],
  es: ['(ext. {n})', '(extensión {n})', 'ext. {n}'],
  pt: ['(ramal {n})', '(ext. {n})'],
  de: ['(Durchwahl {n})', '(Dw. {n})', '(App. {n})'],
  fr: ['(poste {n})', 'poste {n}'],
  it: ['(interno {n})', '(int. {n})'],
  nl: ['(toestel {n})', '(tst. {n})'],
};

/** One written form of a valid number of `country`. */
export function writtenPhone(rng: Rng, country: CountryCode, lang: string): WrittenPhone {
  const parts = validPhone(rng, country);
  for (;;) {
    const [form, layout] = rng.pick(LAYOUTS);
    const value = layout(parts);
    if (value === null) continue;
    if (rng.chance(0.12)) {
      const ext = rng.pick(EXTENSIONS[lang]).replace('{n}', String(rng.int(10, 499)));
      return { form: `${form}+extension`, value: `${value} ${ext}` };
    }
    return { form, value };
  }
}

/** Pieces of markup that carry a number: a tel: link, a WhatsApp vCard, an exported chat's marks. */
export interface PhonePiece {
  readonly form: string;
  readonly text: string;
  readonly values: readonly string[];
}

export function phoneInMarkup(rng: Rng, country: CountryCode, name: string): PhonePiece {
  const p = validPhone(rng, country);
  const digits = p.e164.slice(1);
  const kind = rng.int(0, 5);
  switch (kind) {
    case 0:
      return { form: 'tel_link_html', text: `<a href="tel:${p.e164}">${p.national}</a>`, values: [p.e164, p.national] };
    case 1:
      return { form: 'tel_link_markdown', text: `[${p.international}](tel:${p.e164})`, values: [p.international, p.e164] };
    case 2:
      return { form: 'tel_uri', text: `tel:${p.international.replace(/ /g, '-')}`, values: [p.international.replace(/ /g, '-')] };
    case 3:
      return {
        form: 'vcard_waid',
        text: `BEGIN:VCARD\nVERSION:3.0\nN:;${name};;;\nFN:${name}\nTEL;type=CELL;type=VOICE;waid=${digits}:${p.international}\nEND:VCARD`,
        values: [digits, p.international],
      };
    case 4:
      // WhatsApp's display form: international grouping wrapped in directional marks in exports.
      return { form: 'whatsapp_display', text: `\u202a${p.international}\u202c`, values: [p.international] };
    default:
      return { form: 'wa_me_link', text: `https://wa.me/${digits}`, values: [digits] };
  }
}
