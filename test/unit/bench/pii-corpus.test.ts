// The PII bench corpus holds what it claims: valid values of every form the bench is meant to
// cover, look-alikes that fail the checks, more look-alikes than values, the same text for a seed.
import { passesLuhn } from '../../../domain/privacy/pii';
import { goldSpans } from '../../../domain/privacy/pii-eval';
import { nationalIdKindsOf } from '../../../domain/privacy/validators/national-id';
import { readPhone } from '../../../domain/privacy/validators/phone';
import { DEFAULT_CORPUS, generatePiiCorpus } from '../../../bench/pii-corpus/corpus';
import { passesAnyChecksum } from '../../../bench/pii-corpus/ids';
import { LANGS, LANGUAGES } from '../../../bench/pii-corpus/languages';
import { LOOKALIKE_KINDS } from '../../../bench/pii-corpus/lookalikes';

const corpus = generatePiiCorpus(DEFAULT_CORPUS);
const entities = corpus.flatMap((line) => line.entities.map((e) => ({ ...e, line })));
const lookalikes = corpus.flatMap((line) => line.lookalikes ?? []);
const forms = (type: string) => new Set(entities.filter((e) => e.type === type).map((e) => e.form ?? ''));

/** A phone value without a trailing extension, read as the phone forms are read. */
function phoneIsValid(value: string, countries: readonly string[]): boolean {
  const number = value.replace(/\(?(?:ext\.|extensión|ramal|Durchwahl|Dw\.|App\.|poste|interno|int\.|toestel|tst\.|x)\s?\d+\)?$/u, '').trimEnd();
  if (/^\d{10,15}$/.test(number) && readPhone(`+${number}`)?.valid) return true; // waid= and wa.me digits
  return [undefined, ...countries].some((country) => readPhone(number, country ? { defaultCountry: country as 'DE' } : {})?.valid);
}

describe('PII bench corpus', () => {
  it('is the same text for the same seed and another for another seed', () => {
    const small = { seed: 7, messages: 40 };
    expect(generatePiiCorpus(small)).toEqual(generatePiiCorpus(small));
    expect(generatePiiCorpus({ ...small, seed: 8 })).not.toEqual(generatePiiCorpus(small));
  });

  it('covers seven languages and three channels, with more look-alikes than values', () => {
    expect(new Set(corpus.map((l) => l.lang))).toEqual(new Set(LANGS));
    expect(new Set(corpus.map((l) => l.channel))).toEqual(new Set(['email', 'whatsapp', 'note']));
    expect(entities.length).toBeGreaterThanOrEqual(500);
    expect(lookalikes.length).toBeGreaterThanOrEqual(entities.length);
    expect(new Set(lookalikes.map((l) => l.kind))).toEqual(new Set(LOOKALIKE_KINDS));
  });

  it('labels only valid identifiers, cards and phone numbers', () => {
    const wrong = entities.filter((e) => {
      if (e.type === 'id_number') return !nationalIdKindsOf(e.value).some((kind) => e.form?.startsWith(kind));
      if (e.type === 'credit_card') {
        const digits = e.value.replace(/\D/g, '');
        return digits.length < 14 || digits.length > 19 || !passesLuhn(digits);
      }
      if (e.type === 'phone') return !phoneIsValid(e.value, LANGUAGES[e.line.lang].phoneCountries);
      return false;
    });
    expect(wrong.map((e) => [e.type, e.form, e.value])).toEqual([]);
  });

  it('holds every form the issue lists', () => {
    expect([...forms('email')]).toEqual(
      expect.arrayContaining([
        'spelled_words_en',
        'spelled_words_local',
        'bracketed_{at}',
        'bracketed_<at>',
        'spaces_around_at',
        'broken_across_lines',
        'idn_unicode',
        'idn_punycode',
        'mailto_html',
        'markdown_link',
      ]),
    );
    expect([...forms('phone')]).toEqual(
      expect.arrayContaining(['slash', 'dots', 'area_in_parentheses_pairs', 'narrow_nbsp', 'prefix_00', 'whatsapp_display', 'tel_link_html', 'vcard_waid']),
    );
    expect([...forms('phone')].some((f) => f.endsWith('+extension'))).toBe(true);
    const idKinds = new Set([...forms('id_number')].map((f) => nationalIdKindsOf(entities.find((e) => e.form === f)!.value)).flat());
    for (const kind of ['de_steuer_id', 'fr_nir', 'it_codice_fiscale', 'nl_bsn', 'pt_nif', 'mx_curp', 'in_aadhaar', 'es_nie', 'br_cpf', 'uk_nino']) expect(idKinds).toContain(kind);
    expect(forms('id_number')).toContain('in_aadhaar_grouped_4_4_4');
    expect(forms('id_number')).toContain('br_cpf_compact');
    const cardLengths = new Set(entities.filter((e) => e.type === 'credit_card').map((e) => e.value.replace(/\D/g, '').length));
    expect([...cardLengths].sort()).toEqual([14, 15, 16, 18, 19]);
    expect([...forms('credit_card')].some((f) => f.endsWith('_dots'))).toBe(true);
    expect([...forms('credit_card')].some((f) => f.endsWith('_nbsp'))).toBe(true);
  });

  it('makes look-alikes that fail the checks a redactor may rely on', () => {
    const luhn = lookalikes.filter((l) => l.kind === 'luhn_fail').map((l) => l.value.replace(/\D/g, ''));
    expect(luhn.length).toBeGreaterThan(10);
    expect(luhn.filter((digits) => passesLuhn(digits))).toEqual([]);
    const ids = lookalikes.filter((l) => l.kind === 'id_fail').map((l) => l.value);
    expect(ids.length).toBeGreaterThan(10);
    expect(ids.filter((value) => passesAnyChecksum(value))).toEqual([]);
  });

  it('never puts a look-alike inside personal data', () => {
    const clashes = corpus.filter((line) => {
      const gold = goldSpans(line);
      return (line.lookalikes ?? []).some((l) => {
        const at = line.text.indexOf(l.value);
        return at < 0 || gold.some((g) => at < g.end && g.start < at + l.value.length);
      });
    });
    expect(clashes.map((l) => l.text)).toEqual([]);
  });
});
