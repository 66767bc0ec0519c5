// Values that share digits, dots, @ or words with personal data but are not personal data: a
// redactor must leave every one of them as it is. Each kind is a thing plant messages really hold.
import { writtenCard } from './cards';
import { CHECKSUM_KINDS, ID_LAYOUTS, invalidId } from './ids';
import { LANGUAGES, type Lang } from './languages';
import type { Rng } from './rng';

export type LookalikeKind =
  | 'luhn_fail'
  | 'id_fail'
  | 'last_four'
  | 'firmware'
  | 'ip'
  | 'mac'
  | 'coordinates'
  | 'reading'
  | 'timestamp'
  | 'uuid'
  | 'workflow_id'
  | 'package'
  | 'code'
  | 'order'
  | 'postal'
  | 'meeting'
  | 'handle'
  | 'file'
  | 'date'
  | 'amount'
  | 'wordy';

export const LOOKALIKE_KINDS: readonly LookalikeKind[] = [
  'luhn_fail',
  'id_fail',
  'last_four',
  'firmware',
  'ip',
  'mac',
  'coordinates',
  'reading',
  'timestamp',
  'uuid',
  'workflow_id',
  'package',
  'code',
  'order',
  'postal',
  'meeting',
  'handle',
  'file',
  'date',
  'amount',
  'wordy',
];

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const hex = (rng: Rng, n: number) => rng.letters(n, '0123456789abcdef');
const uuid = (rng: Rng) => `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-${rng.pick(['8', '9', 'a', 'b'])}${hex(rng, 3)}-${hex(rng, 12)}`;
const isoTime = (rng: Rng) => `2026-${pad(rng.int(1, 12), 2)}-${pad(rng.int(1, 28), 2)}T${pad(rng.int(0, 23), 2)}:${pad(rng.int(0, 59), 2)}:${pad(rng.int(0, 59), 2)}`;

/** Thousands grouped by a space of some width, decimals by a comma: "1 234,5". */
function groupedReading(rng: Rng, integer: number, decimals: number): string {
  const sep = rng.pick([' ', '\u202f', '\u00a0', '.']);
  const int = integer.toLocaleString('en-US', { useGrouping: true, maximumFractionDigits: 0 }).replaceAll(',', sep);
  return decimals > 0 ? `${int},${rng.digits(decimals)}` : int;
}

const POSTAL: Record<Lang, (rng: Rng) => string> = {
  en: (rng) => `${rng.pick(['Manchester M1', 'Leeds LS1', 'London EC1A'])} ${rng.int(1, 9)}${rng.letters(2, 'ABDEFGHJLNPQRSTUWXYZ')}`,
  es: (rng) => `${pad(rng.int(1, 52), 2)}${pad(rng.int(0, 999), 3)} ${rng.pick(['Madrid', 'Valencia', 'Paterna', 'Bilbao'])}`,
  pt: (rng) =>
    rng.chance(0.5)
      ? `${rng.int(1000, 4999)}-${pad(rng.int(1, 999), 3)} ${rng.pick(['Lisboa', 'Porto', 'Braga'])}`
      : `${pad(rng.int(1000, 9999), 5)}-${pad(rng.int(0, 999), 3)} São Paulo`,
  de: (rng) => `${rng.pick(['D-', ''])}${pad(rng.int(1067, 99998), 5)} ${rng.pick(['Dortmund', 'Köln', 'München', 'Hamburg'])}`,
  fr: (rng) => `${pad(rng.int(1000, 95999), 5)} ${rng.pick(['Lyon', 'Paris', 'Nantes', 'Lille'])}`,
  it: (rng) => `${pad(rng.int(10, 98), 2)}${pad(rng.int(0, 999), 3)} ${rng.pick(['Milano', 'Torino', 'Bologna', 'Bari'])}`,
  nl: (rng) => `${rng.int(1000, 9999)} ${rng.letters(2, 'ABCDEFGHJKLMNPRSTVWXZ')} ${rng.pick(['Amsterdam', 'Rotterdam', 'Utrecht', 'Eindhoven'])}`,
};

/** The value of a look-alike of `kind`, as written. */
export function lookalikeValue(rng: Rng, kind: LookalikeKind, lang: Lang): string {
  switch (kind) {
    case 'luhn_fail':
      return writtenCard(rng, false).value;
    case 'id_fail': {
      const own = LANGUAGES[lang].ids.map((i) => i.kind).filter((k) => CHECKSUM_KINDS.includes(k));
      const idKind = rng.pick(own.length ? own : CHECKSUM_KINDS);
      return rng.pick(ID_LAYOUTS[idKind])[1](invalidId(rng, idKind));
    }
    case 'last_four':
      return rng.chance(0.3) ? `${rng.pick(['**** **** **** ', 'XXXX-XXXX-XXXX-', '•••• '])}${rng.digits(4)}` : rng.digits(4);
    case 'firmware':
      return rng.pick([
        `v${rng.int(1, 12)}.${rng.int(0, 20)}.${rng.int(0, 40)}`,
        `${rng.int(1, 12)}.${rng.int(0, 9)}.${rng.int(0, 9)}.${rng.int(1000, 9999)}`,
        `${rng.int(1, 5)}.${rng.int(0, 20)}.${rng.int(0, 9)}-rc${rng.int(1, 5)}`,
        `V${rng.int(1, 9)}.${pad(rng.int(0, 99), 2)}.${pad(rng.int(0, 99), 2)}`,
        `${2020 + rng.int(0, 6)}.${pad(rng.int(1, 12), 2)}.${rng.int(1, 4)}`,
      ]);
    case 'ip':
      return rng.pick([
        `192.168.${rng.int(0, 254)}.${rng.int(1, 254)}`,
        `10.${rng.int(0, 254)}.${rng.int(0, 254)}.${rng.int(1, 254)}:${rng.pick([502, 4840, 8080, 44818])}`,
        `172.${rng.int(16, 31)}.${rng.int(0, 254)}.0/${rng.pick([16, 24])}`,
        `fe80::${hex(rng, 4)}:${hex(rng, 2)}ff:fe${hex(rng, 2)}:${hex(rng, 4)}`,
        `2001:db8:${hex(rng, 4)}::${hex(rng, 3)}`,
      ]);
    case 'mac': {
      const bytes = [...Array(6)].map(() => hex(rng, 2));
      return rng.pick([bytes.join(':').toUpperCase(), bytes.join('-'), `${bytes[0]}${bytes[1]}.${bytes[2]}${bytes[3]}.${bytes[4]}${bytes[5]}`]);
    }
    case 'coordinates': {
      const lat = (rng.int(-350000, 600000) / 10000).toFixed(4);
      const lon = (rng.int(-470000, 300000) / 10000).toFixed(4);
      return rng.chance(0.7)
        ? `${lat}, ${lon}`
        : `${rng.int(35, 55)}°${pad(rng.int(0, 59), 2)}'${pad(rng.int(0, 59), 2)}"N ${rng.int(0, 12)}°${pad(rng.int(0, 59), 2)}'${pad(rng.int(0, 59), 2)}"E`;
    }
    case 'reading':
      return `${groupedReading(rng, rng.int(1000, 9_999_999), rng.pick([0, 1, 2]))} ${rng.pick(['kPa', 'hPa', 'rpm', 'h', 'kWh', 'l/h', 'Nm', 'cycles', 'm³'])}`;
    case 'timestamp':
      return rng.pick([`${isoTime(rng)}Z`, `${isoTime(rng)}.${rng.digits(3)}+01:00`, isoTime(rng).replace('T', ' ')]);
    case 'uuid':
      return uuid(rng);
    case 'workflow_id':
      return rng.pick([`webhook-delivery:${uuid(rng)}`, `plan-due:${uuid(rng)}:${isoTime(rng)}Z`, `privacy-export-${uuid(rng)}`, `asset-alert:${uuid(rng)}`]);
    case 'package':
      return rng.pick([
        `lodash@4.17.${rng.int(10, 21)}`,
        `@temporalio/worker@1.${rng.int(10, 24)}.${rng.int(0, 3)}`,
        `pkg:npm/left-pad@1.3.0`,
        `node@${rng.int(18, 24)}.${rng.int(0, 21)}.${rng.int(0, 9)}`,
        `express@5.${rng.int(0, 2)}.${rng.int(0, 9)}`,
      ]);
    case 'code':
      return rng.pick(['v = m.inv@acc.vec', 'y = W@x.T + b', 'out = self.proj@h.T', 'c = a@b.real', 'grad = J.T@r.flat']);
    case 'order':
      return rng.pick([
        `45${rng.digits(8)}`,
        `INC${rng.digits(7)}`,
        `OT-2026-${rng.digits(5)}`,
        `WO ${rng.digits(7)}`,
        `#${rng.digits(6)}`,
        `${rng.digits(4)}-${rng.digits(3)}-${rng.digits(3)}`,
      ]);
    case 'postal':
      return POSTAL[lang](rng);
    case 'meeting':
      return rng.chance(0.6) ? `${rng.int(800, 999)} ${rng.digits(4)} ${rng.digits(4)}` : `${rng.int(200, 399)} ${rng.digits(3)} ${rng.digits(3)} ${rng.digits(3)}`;
    case 'handle':
      return `@${rng.pick(['maria_lopez', 'jwalker', 'ops-team', 'here', 'channel', 'k.tanaka'])}`;
    case 'file':
      return rng.pick(['logo@2x.png', 'icon@3x.webp', 'pump-P101@detail.jpg', 'git@github.com:acme/plant-ops.git', 'diagram@2x.svg']);
    case 'date':
      return rng.pick([
        `${rng.int(1, 28)}.${pad(rng.int(1, 12), 2)}.2026`,
        `${pad(rng.int(1, 28), 2)}/${pad(rng.int(1, 12), 2)}/2026`,
        `2026/${pad(rng.int(1, 12), 2)}/${pad(rng.int(1, 28), 2)}`,
      ]);
    case 'amount':
      return rng.pick([
        `${groupedReading(rng, rng.int(1000, 9_999_999), 2)} €`,
        `€ ${groupedReading(rng, rng.int(100, 99_999), 2)}`,
        `$${rng.int(1, 9)},${rng.digits(3)},${rng.digits(3)}.${rng.digits(2)}`,
        `R$ ${rng.int(1, 99)}.${rng.digits(3)},${rng.digits(2)}`,
      ]);
    case 'wordy':
      throw new Error('wordy look-alikes are whole phrases: use wordyLookalike');
  }
}

/** A prose phrase with the words of spelled-out addresses, and the part of it that must survive. */
export function wordyLookalike(rng: Rng, lang: Lang): { sentence: string; value: string } {
  const phrase = rng.pick(LANGUAGES[lang].wordy);
  const open = phrase.indexOf('[[');
  const close = open < 0 ? -1 : phrase.indexOf(']]', open + 2);
  const value = close < 0 ? undefined : phrase.slice(open + 2, close);
  if (!value) throw new Error(`wordy phrase without [[...]]: ${phrase}`);
  return { sentence: phrase.replaceAll('[[', '').replaceAll(']]', ''), value };
}
