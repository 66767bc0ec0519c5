// E-mail addresses and the ways people write them to dodge scrapers or as mail clients lay them out.
import { domainToASCII } from 'node:url';
import type { Lang } from './languages';
import type { Rng } from './rng';

export interface EmailPiece {
  readonly form: string;
  readonly text: string;
  /** The labelled values inside `text` (a link may hold the address twice: one value, two occurrences). */
  readonly values: readonly string[];
}

const ASCII_FOLD: Record<string, string> = {
  á: 'a',
  à: 'a',
  â: 'a',
  ã: 'a',
  ä: 'ae',
  ç: 'c',
  é: 'e',
  è: 'e',
  ê: 'e',
  ë: 'e',
  í: 'i',
  ï: 'i',
  ñ: 'n',
  ó: 'o',
  ô: 'o',
  õ: 'o',
  ö: 'oe',
  ú: 'u',
  ü: 'ue',
  ß: 'ss',
};
const fold = (s: string) => [...s.toLowerCase()].map((c) => ASCII_FOLD[c] ?? c).join('');

/** The words for "at" and "dot" people spell out, per language (English ones are used everywhere). */
const SPELLED: Record<Lang, { at: readonly string[]; dot: readonly string[] }> = {
  en: { at: ['at', 'AT'], dot: ['dot', 'DOT'] },
  es: { at: ['arroba'], dot: ['punto'] },
  pt: { at: ['arroba'], dot: ['ponto'] },
  de: { at: ['at'], dot: ['Punkt', 'punkt'] },
  fr: { at: ['arobase', 'at'], dot: ['point'] },
  it: { at: ['chiocciola', 'at'], dot: ['punto'] },
  nl: { at: ['apenstaartje', 'at'], dot: ['punt'] },
};

const BRACKETS: ReadonlyArray<readonly [string, string]> = [
  ['[', ']'],
  ['(', ')'],
  ['{', '}'],
  ['<', '>'],
];

/** A local part as people have them: name.surname, initial+surname, with a year or a plus tag. */
export function localPart(rng: Rng, first: string, last: string): string {
  const f = fold(first).replace(/[^a-z]/g, '');
  const l = fold(last).replace(/[^a-z]/g, '');
  switch (rng.int(0, 6)) {
    case 0:
      return `${f}.${l}`;
    case 1:
      return `${f[0]}.${l}`;
    case 2:
      return `${f}${l[0]}`;
    case 3:
      return `${f}.${l}${rng.int(70, 99)}`;
    case 4:
      return `${f}_${l}`;
    case 5:
      return `${f}.${l}+${rng.pick(['pedidos', 'orders', 'work', 'plant', 'alerts'])}`;
    default:
      return `${f}-${l}`;
  }
}

const spellOut = (address: string, at: string, dot: string) => {
  const [local, domain] = address.split('@');
  return `${local.split('.').join(` ${dot} `)} ${at} ${domain.split('.').join(` ${dot} `)}`;
};

/** One address written in one form; `domain` may be internationalised (its xn-- form is derived). */
export function writtenEmail(rng: Rng, lang: Lang, local: string, domain: string, displayName: string): EmailPiece {
  const address = `${local}@${domain}`;
  if (/[^ -~]/.test(domain)) {
    // Internationalised domains: as the sender typed them, or as a client that cannot show them wrote them.
    const value = rng.chance(0.5) ? address : `${local}@${domainToASCII(domain)}`;
    return { form: value === address ? 'idn_unicode' : 'idn_punycode', text: value, values: [value] };
  }
  const form = rng.int(0, 12);
  switch (form) {
    case 0:
    case 1:
      return { form: 'plain', text: address, values: [address] };
    case 2: {
      const words = rng.chance(0.5) ? SPELLED.en : SPELLED[lang];
      const value = spellOut(address, rng.pick(words.at), rng.pick(words.dot));
      return { form: words === SPELLED.en ? 'spelled_words_en' : 'spelled_words_local', text: value, values: [value] };
    }
    case 3: {
      const [open, close] = rng.pick(BRACKETS);
      const words = rng.chance(0.6) ? SPELLED.en : SPELLED[lang];
      const at = `${open}${rng.pick(words.at)}${close}`;
      const bracketDot = rng.chance(0.5);
      const dot = `${open}${rng.pick(words.dot)}${close}`;
      const value = bracketDot ? `${local} ${at} ${domain.split('.').join(` ${dot} `)}` : `${local}${rng.chance(0.5) ? ' ' : ''}${at}${rng.chance(0.5) ? ' ' : ''}${domain}`;
      return { form: `bracketed_${open}at${close}`, text: value, values: [value] };
    }
    case 4: {
      const value = rng.pick([`${local} @ ${domain}`, `${local}@ ${domain}`, `${local} @${domain}`]);
      return { form: 'spaces_around_at', text: value, values: [value] };
    }
    case 5: {
      // Hard-wrapped mail: the address broken at the @, at a dot of the domain or at a hyphen.
      const breaks = [`${local}@\n${domain}`, `${local}\n@${domain}`];
      const dotAt = domain.indexOf('.');
      breaks.push(`${local}@${domain.slice(0, dotAt + 1)}\n${domain.slice(dotAt + 1)}`);
      if (domain.includes('-')) breaks.push(`${local}@${domain.replace('-', '-\n')}`);
      const value = rng.pick(breaks);
      return { form: 'broken_across_lines', text: value, values: [value] };
    }
    case 6:
      return { form: 'mailto_html', text: `<a href="mailto:${address}">${address}</a>`, values: [address] };
    case 7:
      return {
        form: 'mailto_html_named',
        text: `<a href="mailto:${address}?subject=${encodeURIComponent(rng.pick(['Pedido', 'Wartung', 'RFQ', 'Offerta']))}">${displayName}</a>`,
        values: [address],
      };
    case 8:
      return { form: 'markdown_link', text: `[${address}](mailto:${address})`, values: [address] };
    case 9:
      return { form: 'markdown_named_link', text: `[${displayName}](mailto:${address})`, values: [address] };
    case 10:
      return { form: 'display_name_angle', text: `${displayName} <${address}>`, values: [address] };
    case 11:
      return { form: 'upper_case', text: address.toUpperCase(), values: [address.toUpperCase()] };
    default:
      return { form: 'angle_autolink', text: `<mailto:${address}>`, values: [address] };
  }
}

/** Companies' and mailbox providers' domains per language; some internationalised. */
export const DOMAINS: Record<Lang, { company: readonly string[]; free: readonly string[]; idn: readonly string[] }> = {
  en: {
    company: ['northfield-engineering.co.uk', 'pacific-automation.com', 'bharat-pumps.co.in', 'rivet.io', 'acme-plant.com'],
    free: ['gmail.com', 'outlook.com', 'yahoo.co.uk', 'icloud.com'],
    idn: ['café-supplies.com'],
  },
  es: {
    company: ['talleresgarcia.es', 'rodamientos-levante.es', 'hidraulica-norte.com.mx', 'acme.es'],
    free: ['gmail.com', 'hotmail.es', 'yahoo.es', 'outlook.es'],
    idn: ['señalética-sur.es', 'compañía-eléctrica.es'],
  },
  pt: {
    company: ['metalurgica-porto.pt', 'bombas-sul.com.br', 'eletro-minas.com.br'],
    free: ['gmail.com', 'sapo.pt', 'uol.com.br', 'hotmail.com'],
    idn: ['construções-silva.pt', 'elétrica-paulista.com.br'],
  },
  de: {
    company: ['schmidt-anlagenbau.de', 'ruhr-pumpen.de', 'alpen-hydraulik.at', 'kraftwerk-nord.de'],
    free: ['gmx.de', 'web.de', 't-online.de', 'gmail.com'],
    idn: ['müller-technik.de', 'bäckerei-schäfer.de', 'straßenbau-köln.de'],
  },
  fr: {
    company: ['maintenance-lyon.fr', 'electricite-dupont.fr', 'robinetterie-ouest.fr'],
    free: ['orange.fr', 'free.fr', 'laposte.net', 'gmail.com'],
    idn: ['élec-services.fr', 'société-générale-bâtiment.fr'],
  },
  it: { company: ['officine-rossi.it', 'pompe-brianza.it', 'impianti-sud.it'], free: ['libero.it', 'virgilio.it', 'gmail.com', 'tiscali.it'], idn: ['caffè-torino.it'] },
  nl: { company: ['vandijk-techniek.nl', 'pompen-rotterdam.nl', 'installatie-brabant.be'], free: ['ziggo.nl', 'kpnmail.nl', 'gmail.com', 'hotmail.nl'], idn: ['café-sluis.nl'] },
};
