// The PII bench corpus: messages as they are written in e-mail, WhatsApp and maintenance notes, in
// seven languages, with labelled personal data and at least as many labelled look-alikes. Built
// from a seed, so `npm run bench -- pii` scores the same text on every machine; kept out of the
// unit tests' fixture (test/fixtures/pii/) so neither is tuned on the other.
import type { LabelledEntity, LabelledLine, Lookalike } from '../../domain/privacy/pii-eval';
import { writtenCard } from './cards';
import { DOMAINS, localPart, writtenEmail } from './emails';
import { writtenId } from './ids';
import { LANGS, LANGUAGES, type Lang, type LanguagePack } from './languages';
import { LOOKALIKE_KINDS, type LookalikeKind, lookalikeValue, wordyLookalike } from './lookalikes';
import { phoneInMarkup, writtenPhone } from './phones';
import { Rng } from './rng';

export type Channel = 'email' | 'whatsapp' | 'note';

export interface CorpusLine extends LabelledLine {
  readonly lang: Lang;
  readonly channel: Channel;
}

export interface CorpusOptions {
  readonly seed: number;
  readonly messages: number;
}

/** The corpus `npm run bench -- pii` scores: change it only with a new seed, never to suit a detector. */
export const DEFAULT_CORPUS: CorpusOptions = { seed: 57, messages: 350 };

const pad = (n: number) => String(n).padStart(2, '0');

/** A part of a message: its lines, and the labels of what it holds. */
interface Part {
  readonly text: string;
  readonly entities: LabelledEntity[];
  readonly lookalikes: Lookalike[];
  /** Set for a part that is the sender of a WhatsApp line (an unsaved contact shows as its number). */
  readonly sender?: string;
  /** Set for a part that goes in an e-mail signature rather than the body. */
  readonly signature?: boolean;
}

/** Every identifier kind with the labels its own language uses. */
const ALL_IDS = LANGS.flatMap((lang) => LANGUAGES[lang].ids);

const fill = (template: string, slots: Record<string, string>) => template.replace(/\{(\w+)\}/g, (all, key: string) => slots[key] ?? all);

class MessageBuilder {
  constructor(
    private readonly rng: Rng,
    private readonly lang: Lang,
    private readonly pack: LanguagePack,
    private readonly channel: Channel,
  ) {}

  name(): string {
    return `${this.rng.pick(this.pack.first)} ${this.rng.pick(this.pack.last)}`;
  }

  private sentence(templates: readonly string[], value: string, extra: Record<string, string> = {}): string {
    return fill(this.rng.pick(templates), { v: value, name: this.rng.pick(this.pack.first), ...extra });
  }

  phone(): Part {
    const rng = this.rng;
    const country = rng.pick(this.pack.phoneCountries);
    if (rng.chance(0.18)) {
      const piece = phoneInMarkup(rng, country, this.name());
      const entities = piece.values.map((value) => ({ type: 'phone' as const, value, form: piece.form }));
      if (piece.form === 'whatsapp_display' && this.channel === 'whatsapp') return { text: '', entities, lookalikes: [], sender: piece.text };
      if (piece.form === 'vcard_waid') return { text: piece.text, entities, lookalikes: [] };
      return { text: this.sentence(this.pack.phone, piece.text), entities, lookalikes: [] };
    }
    const { value, form } = writtenPhone(rng, country, this.lang);
    const entities = [{ type: 'phone' as const, value, form }];
    if (this.channel === 'email' && rng.chance(0.4)) {
      return { text: `${rng.pick(['Tel.', 'Tel:', 'T:', 'M:', 'Mob.', 'Phone:', 'Tlf.', 'Tél.', 'Cel.', ''])} ${value}`.trim(), entities, lookalikes: [], signature: true };
    }
    return { text: this.sentence(this.pack.phone, value), entities, lookalikes: [] };
  }

  email(): Part {
    const rng = this.rng;
    const [first, last] = [rng.pick(this.pack.first), rng.pick(this.pack.last)];
    const domains = DOMAINS[this.lang];
    const domain = rng.pick(rng.chance(0.15) ? domains.idn : rng.chance(0.6) ? domains.company : domains.free);
    const piece = writtenEmail(rng, this.lang, localPart(rng, first, last), domain, `${first} ${last}`);
    const entities = piece.values.map((value) => ({ type: 'email' as const, value, form: piece.form }));
    if (this.channel === 'email' && rng.chance(0.3) && !piece.text.includes('\n')) return { text: piece.text, entities, lookalikes: [], signature: true };
    return { text: this.sentence(this.pack.email, piece.text), entities, lookalikes: [] };
  }

  id(): Part {
    const rng = this.rng;
    // Mostly the country's own identifiers; a third of the time a colleague's or customer's from elsewhere.
    const { kind, labels } = rng.pick(rng.chance(0.65) ? this.pack.ids : ALL_IDS);
    const { value, form } = writtenId(rng, kind);
    const entities = [{ type: 'id_number' as const, value, form }];
    // A list of staff with their numbers carries no label at all.
    if (rng.chance(0.15)) return { text: `${this.name()}, ${value}`, entities, lookalikes: [] };
    return { text: this.sentence(this.pack.id, value, { label: rng.pick(labels) }), entities, lookalikes: [] };
  }

  card(): Part {
    const { value, form } = writtenCard(this.rng);
    return { text: this.sentence(this.pack.card, value), entities: [{ type: 'credit_card', value, form }], lookalikes: [] };
  }

  lookalike(kind: LookalikeKind): Part {
    if (kind === 'wordy') {
      const { sentence, value } = wordyLookalike(this.rng, this.lang);
      return { text: sentence, entities: [], lookalikes: [{ kind, value }] };
    }
    const value = lookalikeValue(this.rng, kind, this.lang);
    const labels = this.pack.labels[kind] ?? [kind];
    // A bare value ("{v}") only where it reads naturally on its own.
    const frames = ['order', 'last_four', 'meeting', 'postal', 'wordy'].includes(kind) ? this.pack.lookalike.filter((f) => f !== '{v}') : this.pack.lookalike;
    return { text: this.sentence(frames, value, { label: this.rng.pick(labels) }), entities: [], lookalikes: [{ kind, value }] };
  }

  filler(): string {
    return this.rng.pick(this.pack.filler);
  }
}

function stamp(rng: Rng): { date: string; time: string } {
  return { date: `${pad(rng.int(1, 28))}/${pad(rng.int(1, 12))}/26`, time: `${pad(rng.int(6, 22))}:${pad(rng.int(0, 59))}` };
}

/** Lays the parts out as the channel does. */
function compose(rng: Rng, b: MessageBuilder, pack: LanguagePack, channel: Channel, parts: Part[]): string {
  if (channel === 'whatsapp') {
    const people = [b.name().split(' ')[0], b.name()];
    const android = rng.chance(0.5);
    const lines: string[] = [];
    const { date } = stamp(rng);
    let { time } = stamp(rng);
    const line = (sender: string, text: string) => {
      time = `${time.slice(0, 3)}${pad(Math.min(59, Number(time.slice(3)) + rng.int(0, 3)))}`;
      lines.push(android ? `${date.replace(/\/26$/, '/2026')}, ${time} - ${sender}: ${text}` : `[${date}, ${time}:${pad(rng.int(0, 59))}] ${sender}: ${text}`);
    };
    if (rng.chance(0.5)) line(rng.pick(people), b.filler());
    for (const part of parts) {
      if (part.sender) line(part.sender, b.filler());
      else line(rng.pick(people), part.text);
    }
    return lines.join('\n');
  }
  if (channel === 'note') {
    const { date, time } = stamp(rng);
    const head = rng.pick([
      `${date} ${time} - ${b.name()}:`,
      `[${rng.pick(['P-101A', 'C-2', 'L2', 'T-4', 'B-12'])}] ${date} ${time}`,
      `NOTE ${date}`,
      `${time} turno ${rng.pick(['A', 'B', 'C'])}:`,
    ]);
    const body = parts.map((p) => p.text);
    if (rng.chance(0.6)) body.splice(rng.int(0, body.length), 0, b.filler());
    return `${head}\n${body.join(rng.pick(['\n', '. ', '; ', '\n- ']))}`;
  }
  const sender = b.name();
  const body = parts.filter((p) => !p.signature).map((p) => p.text);
  if (rng.chance(0.7)) body.splice(rng.int(0, body.length), 0, b.filler());
  const signature = [sender, rng.pick(pack.roles), rng.pick(pack.companies), ...parts.filter((p) => p.signature).map((p) => p.text)];
  const lines = [fill(rng.pick(pack.greeting), { name: b.name().split(' ')[0] }), '', body.join(rng.pick(['\n', '. ', '\n\n'])), '', rng.pick(pack.signoff), ...signature];
  return lines.join('\n');
}

/** True when every labelled value is in the text and no look-alike overlaps personal data. */
function labelsHold(text: string, entities: readonly LabelledEntity[], lookalikes: readonly Lookalike[]): boolean {
  const spansOf = (value: string) => {
    const out: Array<[number, number]> = [];
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) out.push([at, at + value.length]);
    return out;
  };
  const gold = entities.flatMap((e) => spansOf(e.value));
  if (entities.some((e) => spansOf(e.value).length === 0)) return false;
  return lookalikes.every((l) => {
    const spans = spansOf(l.value);
    return spans.length > 0 && spans.every(([s, e]) => gold.every(([gs, ge]) => e <= gs || ge <= s));
  });
}

const PII_WEIGHTS: ReadonlyArray<readonly [keyof Pick<MessageBuilder, 'phone' | 'email' | 'id' | 'card'>, number]> = [
  ['phone', 0.34],
  ['email', 0.3],
  ['id', 0.22],
  ['card', 0.14],
];

function pickPii(rng: Rng): 'phone' | 'email' | 'id' | 'card' {
  let x = rng.next();
  for (const [kind, weight] of PII_WEIGHTS) {
    if ((x -= weight) < 0) return kind;
  }
  return 'phone';
}

function message(rng: Rng, index: number): CorpusLine {
  const lang = LANGS[index % LANGS.length];
  const pack = LANGUAGES[lang];
  for (;;) {
    const channel = rng.pick<Channel>(['email', 'whatsapp', 'note']);
    const b = new MessageBuilder(rng, lang, pack, channel);
    const pii = [...Array(rng.pick([0, 1, 1, 1, 2, 2, 3]))].map(() => b[pickPii(rng)]());
    const valueCount = pii.reduce((n, p) => n + p.entities.length, 0);
    const looks = [...Array(Math.max(1, valueCount + rng.pick([0, 0, 1])))].map(() => b.lookalike(rng.pick(LOOKALIKE_KINDS)));
    const parts = rng.shuffle([...pii, ...looks]);
    let text = compose(rng, b, pack, channel, parts);
    const entities = parts.flatMap((p) => p.entities);
    if (channel === 'email' && rng.chance(0.15)) {
      // A quoted reply's header names the previous sender and their address.
      const [first, last] = [rng.pick(pack.first), rng.pick(pack.last)];
      const address = `${localPart(rng, first, last)}@${rng.pick(DOMAINS[lang].company)}`;
      const when = stamp(rng);
      text += `\n\n${fill(rng.pick(pack.replyHeader), { date: `${when.date} ${when.time}`, name: `${first} ${last}`, email: address })}`;
      if (text.includes(address)) entities.push({ type: 'email', value: address, form: 'reply_header' });
    }
    const lookalikes = parts.flatMap((p) => p.lookalikes);
    if (labelsHold(text, entities, lookalikes)) return { text, entities, lookalikes, lang, channel };
  }
}

/** The corpus for `options`: the same seed always gives the same messages. */
export function generatePiiCorpus(options: CorpusOptions = DEFAULT_CORPUS): CorpusLine[] {
  const rng = new Rng(options.seed);
  return [...Array(options.messages).keys()].map((i) => message(rng, i));
}
