/** The model path: the answer coerced to the template types with its spans, and the merge's labelling when the model failed on a chunk. */
import { extractBuiltIn } from '../../../domain/extraction/builtin';
import { coerceFieldValue } from '../../../domain/extraction/coerce';
import { mergeChunkResults } from '../../../domain/extraction/merge';
import { extractionPrompt, MODEL_CONFIDENCE, ModelAnswerError, parseModelAnswer } from '../../../domain/extraction/model-answer';
import { subjectKeys } from '../../../domain/extraction/subject';
import type { TemplateField } from '../../../domain/extraction/types';

const FIELDS: TemplateField[] = [
  { name: 'invoice_number', type: 'string' },
  { name: 'total', type: 'number' },
  { name: 'issued', type: 'date' },
  { name: 'currency', type: 'enum', values: ['EUR', 'USD'] },
  { name: 'paid', type: 'boolean' },
  { name: 'parts', type: 'array', items: 'number' },
];
const TEXT = 'Invoice no. INV-7 issued 12 March 2026. Amount due: 1.234,56 eur. Parts 4, 5.';

describe('model answers', () => {
  it('coerces values to the field types, locates quotes as spans, and drops what does not fit', () => {
    const answer =
      'Sure! ```json\n' +
      JSON.stringify({
        invoice_number: { value: 'INV-7', quote: 'INV-7' },
        total: { value: '1.234,56', quote: '1.234,56 eur' },
        issued: { value: '2026-03-12', quote: 'not in the text' },
        currency: { value: 'eur', quote: null },
        paid: { value: 'perhaps', quote: null },
        parts: { value: [4, '5'], quote: '4, 5' },
      }) +
      '\n```';
    const fields = parseModelAnswer(FIELDS, answer, TEXT, 100);
    expect(fields).toEqual({
      invoice_number: { value: 'INV-7', confidence: MODEL_CONFIDENCE.QUOTED, engine: 'openai-compatible', source: { start: 112, end: 117, text: 'INV-7' } },
      total: { value: 1234.56, confidence: MODEL_CONFIDENCE.QUOTED, engine: 'openai-compatible', source: { start: 152, end: 164, text: '1.234,56 eur' } },
      issued: { value: '2026-03-12', confidence: MODEL_CONFIDENCE.UNQUOTED, engine: 'openai-compatible', source: null },
      // No quote: the value itself is looked for.
      currency: { value: 'EUR', confidence: MODEL_CONFIDENCE.QUOTED, engine: 'openai-compatible', source: { start: 161, end: 164, text: 'eur' } },
      paid: { value: null, confidence: 0, engine: 'openai-compatible', source: null },
      parts: { value: [4, 5], confidence: MODEL_CONFIDENCE.QUOTED, engine: 'openai-compatible', source: { start: 172, end: 176, text: '4, 5' } },
    });
    expect(TEXT.slice(52, 64)).toBe('1.234,56 eur');
  });

  it('refuses an answer without a JSON object', () => {
    expect(() => parseModelAnswer(FIELDS, 'I cannot help with that.', TEXT)).toThrow(ModelAnswerError);
  });

  it('asks for JSON and names every field with its type', () => {
    const [system, user] = extractionPrompt(FIELDS, TEXT);
    expect(system.content).toContain('ONE JSON object');
    expect(user.content).toContain('- currency (one of ["EUR","USD"])');
    expect(user.content).toContain('- parts (array of number)');
    expect(user.content).toContain(TEXT);
  });

  it('labels a record mixed, with a notice, when the model failed on some chunks', () => {
    const model = { engine: 'openai-compatible' as const, model: 'gpt-x', fields: parseModelAnswer(FIELDS, JSON.stringify({ total: 5 }), 'total 5') };
    const fallback = { engine: 'built-in' as const, model: 'built-in', fellBack: true, fields: extractBuiltIn(FIELDS, TEXT) };
    const merged = mergeChunkResults(FIELDS, [model, fallback]);
    expect(merged.engine).toBe('mixed');
    expect(merged.model).toBe('gpt-x');
    expect(merged.notice).toBe('The configured language model failed on 1 of 2 chunk(s); the built-in engine extracted those.');
    expect(merged.fields.total.engine).toBe('openai-compatible');
    expect(merged.fields.invoice_number).toMatchObject({ value: 'INV-7', engine: 'built-in' });
  });
});

describe('corrections and subject keys', () => {
  it.each([
    [{ name: 'd', type: 'date' }, '5 Apr 2026', { ok: true, value: '2026-04-05' }],
    [{ name: 'd', type: 'date' }, '2026-02-30', { ok: false, reason: 'must be a date (yyyy-mm-dd, dd/mm/yyyy or "12 March 2026")' }],
    [{ name: 'n', type: 'number' }, '€ 12,50', { ok: true, value: 12.5 }],
    [{ name: 'n', type: 'number' }, true, { ok: false, reason: 'must be a number' }],
    [{ name: 'e', type: 'enum', values: ['Low', 'High'] }, 'high', { ok: true, value: 'High' }],
    [{ name: 'b', type: 'boolean' }, 'No', { ok: true, value: false }],
    [{ name: 'a', type: 'array', items: 'date' }, ['01/02/2026', 'x'], { ok: false, reason: 'every item must be a date' }],
    [{ name: 's', type: 'string' }, null, { ok: true, value: null }],
  ] as Array<[TemplateField, unknown, unknown]>)('%j takes %j as %j', (field, raw, expected) => {
    expect(coerceFieldValue(field, raw)).toEqual(expected);
  });

  it('takes whole e-mail and phone values as subject keys, e-mails first', () => {
    const field = (value: unknown) => ({ value: value as string, confidence: 1, source: null, engine: 'built-in' as const });
    expect(subjectKeys({ a: field('+34 612 345 678'), b: field('Ana@Example.com'), c: field('call +34 600 000 000'), d: field(12) })).toEqual({
      emails: ['ana@example.com'],
      phoneDigits: ['34612345678'],
    });
  });
});
