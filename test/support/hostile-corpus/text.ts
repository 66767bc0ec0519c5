/**
 * The hostile corpus's text: deterministic inputs that make a backtracking matcher (a regular
 * expression, or code that rescans) super-linear, and the dense mail that makes a linear one slow
 * by volume. Pure functions of their length (and a seed where values vary): the same bytes on
 * every run.
 */

/** `unit` repeated to exactly `length` characters. */
export function repeated(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/**
 * Long runs of what patterns repeat, and each detector's near-miss prefix repeated (a shape that
 * starts a match and fails it at the end): name -> generator of a text of `length` characters.
 */
export const PATHOLOGICAL_RUNS: Readonly<Record<string, (length: number) => string>> = {
  spaces: (n) => repeated(' ', n),
  newlines: (n) => repeated('\n', n),
  tabs_and_nbsp: (n) => repeated('\t\u00a0', n),
  digits: (n) => repeated('7', n),
  dots: (n) => repeated('.', n),
  at_signs: (n) => repeated('@', n),
  hyphens: (n) => repeated('-', n),
  digit_space: (n) => repeated('1 ', n),
  digit_double_space: (n) => repeated('12  ', n),
  digit_dot: (n) => repeated('1.', n),
  digit_hyphen: (n) => repeated('1-', n),
  digit_slash: (n) => repeated('1/', n),
  parenthesised_digits: (n) => repeated('(1)', n),
  a_hyphen: (n) => repeated('a-', n),
  word_then_underscore: (n) => `${repeated('a1', n - 1)}_`,
  letters: (n) => repeated('a', n),
  // Near misses of each detector, repeated.
  email_local_no_at: (n) => repeated('a.b', n),
  email_no_tld: (n) => repeated('a@b.', n),
  email_domain_labels: (n) => `x@${repeated('a.', n - 3)}1`,
  email_obfuscated: (n) => repeated('a [at] b [dot] ', n),
  email_angle_words: (n) => repeated('a <at> b <dot> ', n),
  email_spelled_dots: (n) => repeated('a dot ', n),
  email_spelled_chain: (n) => repeated('a at b dot ', n),
  email_spelled_no_tld: (n) => `x at ${repeated('b punkt ', n - 6)}`,
  email_spaced_at: (n) => repeated('a @ ', n),
  email_spelled_dotted_local: (n) => repeated('a.b arroba c punto ', n),
  email_dotted_words: (n) => repeated('a.b.c ', n),
  email_wrapped: (n) => repeated('a@\nb.\n', n),
  email_wrapped_hyphens: (n) => `x@${repeated('a-\n', n - 2)}`,
  email_code: (n) => repeated('m.inv@acc.vec ', n),
  email_wrapped_local: (n) => repeated('a.\n', n),
  email_wrapped_dotted_local: (n) => repeated('ab.cd.\n', n),
  email_code_new_tld: (n) => repeated('x = q.top@heap.next ', n),
  phone_plus: (n) => repeated('+3 ', n),
  phone_country_parens: (n) => repeated('(+34) ', n),
  phone_words: (n) => repeated('tel ', n),
  phone_label: (n) => repeated('order no. ', n),
  phone_numbers: (n) => repeated('612 345 678\n', n),
  phone_national_numbers: (n) => repeated('Ana, 911 234 567, ', n),
  phone_narrow_spaces: (n) => repeated('1\u202f', n),
  phone_slash_spaced: (n) => repeated('0161 / ', n),
  phone_slashes: (n) => repeated('622/', n),
  phone_extension_open: (n) => repeated('612 345 678 (ext. 1', n),
  phone_whatsapp: (n) => repeated('waid=1', n),
  card_groups: (n) => repeated('4111 ', n),
  // Near misses of the any-grouping identifier reader: upper-case and digit groups that never
  // compact to an identifier, or nearly do, joined by every separator it reads.
  id_groups_upper: (n) => repeated('AB 1 ', n),
  id_groups_mixed_separators: (n) => repeated('X1.Y2-Z3/', n),
  id_groups_nbsp: (n) => repeated('12\u00a0345\u202f', n),
  id_groups_labelled: (n) => repeated('BSN 111-222-33 ', n),
  id_groups_nir_like: (n) => repeated('1-87-01-24-524-061-3 ', n),
  id_groups_curp_like: (n) => repeated('NERB 000905 HMCTBB ', n),
  iban_like: (n) => repeated('NL91 ABNA ', n),
  phone_din_extension: (n) => repeated('030 1-', n),
  phone_double_spaced: (n) => repeated('020  7946  ', n),
  phone_two_groups: (n) => repeated('98765 4321 ', n),
  phone_wide_extension: (n) => repeated('612 345 678  ext. ', n),
  id_letter_spaced: (n) => repeated('X 1 2 3 4 5 6 ', n),
  id_letter_spaced_digits: (n) => repeated('1 1 1 2 2 2 3 3 ', n),
  card_letter_spaced: (n) => repeated('6 0 1 1  0 0 0 9  ', n),
  card_hyphens: (n) => repeated('4111-', n),
  card_dots: (n) => repeated('4111.', n),
  card_narrow_spaces: (n) => repeated('4111\u202f', n),
  card_short_last_group: (n) => repeated('6212 3456 7890 1234 7 ', n),
  cpf_label_spaces: (n) => `CPF${repeated(' ', n - 14)}12345678901`,
  cpf_label_newlines: (n) => `CPF nº${repeated('\n', n - 17)}12345678901`,
  cpf_dotted: (n) => repeated('123.456.789-', n),
  ssn_label: (n) => repeated('SSN ', n),
  dni_digits: (n) => repeated('12345678 ', n),
  dni_groups: (n) => repeated('12 345 678 ', n),
  codice_fiscale_groups: (n) => repeated('RSS MRA 85T10 ', n),
  id_labels: (n) => repeated('NIF BSN (DNI) ', n),
  nino_prefix: (n) => repeated('AB 12 ', n),
  nir_groups: (n) => repeated('1 42 11 36 353 194 ', n),
  codice_fiscale_prefix: (n) => repeated('RSSMRA85T10', n),
  curp_prefix: (n) => repeated('BOXW310820H', n),
  bsn_dotted: (n) => repeated('1112.22.', n),
  aadhaar_groups: (n) => repeated('2341 2341 ', n),
  id_label_digits: (n) => repeated('BSN 111222333 ', n),
  // Labels that govern a number across words of complement, in a JSON key, after aligned spaces.
  governing_label_words: (n) => repeated('Zähler de a b c d e 0612 345 678 ', n),
  governing_label_spaces: (n) => repeated('LIEFERSCHEIN    Nr 8 ', n),
  json_reading_keys: (n) => repeated('{"reading":"0612345678"},', n),
  steuer_id_dotted: (n) => repeated('86.095.742.', n),
  phone_split_after_word: (n) => repeated('Tel 0583 4 4 9 ', n),
  phone_brazil_carrier: (n) => repeated('(0xx11 0xx2 ', n),
  phone_spaced_trunk_parens: (n) => repeated('(0 30 (0 ', n),
  phone_no_break_hyphens: (n) => repeated('06\u2011', n),
  phone_list_joins: (n) => repeated('tel 612 / 1 ou 2, ', n),
  phone_area_slash_digits: (n) => repeated('0621 / 5 8 ', n),
  governing_label_bracket: (n) => repeated("matricola INPS dell'a (", n),
  // A governing label's reach ends at a sentence's end or a person's mark, read in the words before each number.
  governing_label_sentence_ends: (n) => repeated('Rechnung ok. ab; 0612 345 678 ', n),
  governing_label_person_marks: (n) => repeated('Invoice to Mr. Maier 0612 345 678 ', n),
  id_label_plural: (n) => repeated('SSNs ', n),
  ssn_spaced_unrepeated: (n) => repeated('212 48 3391 ', n),
  card_uatp_groups: (n) => repeated('1102 7394 ', n),
  email_umlaut_at: (n) => repeated('a ät b punkt ', n),
  email_ocr_spaced_dots: (n) => `x @ ${repeated('a . ', n - 5)}`,
  email_ocr_spaced_at: (n) => repeated('a @ b .', n),
  email_ocr_spaced_local: (n) => `${repeated('a . ', n - 6)} @ b .`,
  // Table cells whose header is read above them: a header per two rows, rows without one, one endless row.
  table_rows_with_header: (n) => repeated('a;tel;c\nx;0612345678;z\n', n),
  table_rows_no_header: (n) => repeated('1;612345678;2\n', n),
  table_one_long_row: (n) => repeated('612345678;', n),
  table_rows_value_every_other: (n) => repeated('x;0612345678\nx;y\n', n),
  iso_dates: (n) => repeated('2026-11-23T', n),
  ipv4_dots: (n) => repeated('1.2.3.', n),
  times: (n) => repeated('12:3', n),
  // The reply engine's and the CSAT reply's shapes.
  health_phrase: (n) => repeated('check   ', n),
  broken_phrase: (n) => `the${repeated(' ', n - 3)}`,
  score_reply: (n) => `4${repeated(' ', n - 2)}x`,
  bullet_blanks: (n) => `- ${repeated(' ', n - 3)}\r`,
};

/** A small deterministic generator (mulberry32), so the dense mail is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Luhn-valid 16-digit Visa number from 15 random digits. */
function visa(next: () => number): string {
  const digits = [4, ...Array.from({ length: 14 }, () => Math.floor(next() * 10))];
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let d = digits[14 - i]!;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  digits.push((10 - (sum % 10)) % 10);
  return digits.join('').replace(/(\d{4})(?=\d)/g, '$1 ');
}

/**
 * A mail body of at most `length` characters (whole lines) dense with values to redact: every line holds an e-mail
 * address, a phone number and a card number, as a contact list or a leaked export would.
 */
export function densePiiMail(length: number, seed = 56): string {
  const next = random(seed);
  const digits = (count: number) => Array.from({ length: count }, () => Math.floor(next() * 10)).join('');
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const line = `${i} contact user${digits(4)}.name@example${digits(2)}.com tel +34 6${digits(2)} ${digits(3)} ${digits(3)} card ${visa(next)} ok\n`;
    if (size + line.length > length) break;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}
