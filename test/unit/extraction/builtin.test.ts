/**
 * The built-in engine on the fixtures of test/fixtures/extraction: every field's value, confidence
 * and source span (asserted as the text at the span's offsets), from plain text and from a real PDF.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIDENCE, extractBuiltIn, extractField } from '../../../domain/extraction/builtin';
import { planChunks } from '../../../domain/extraction/chunks';
import { mergeChunkResults, missingRequired } from '../../../domain/extraction/merge';
import type { ExtractedFields } from '../../../domain/extraction/types';
import { INVOICE_FIELDS, WORK_ORDER_FIELDS } from '../../fixtures/extraction/templates';
import { invoicePdf } from '../../fixtures/extraction/pdf';
import { pdfText } from '../../support/pdf-text';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/extraction', name), 'utf8');

/** value, confidence and the span's text, and that the span's offsets point at that text. */
function summary(text: string, fields: ExtractedFields) {
  return Object.fromEntries(
    Object.entries(fields).map(([name, r]) => {
      if (r.source) expect(text.slice(r.source.start, r.source.end)).toBe(r.source.text);
      expect(r.engine).toBe('built-in');
      return [name, [r.value, r.confidence, r.source?.text ?? null]];
    }),
  );
}

const INVOICE_EXPECTED = {
  invoice_number: ['INV-2026-0042', CONFIDENCE.LABELLED, 'INV-2026-0042'],
  invoice_date: ['2026-03-05', CONFIDENCE.LABELLED, '05/03/2026'],
  due_date: ['2026-04-04', CONFIDENCE.LABELLED, '2026-04-04'],
  customer_name: ['Northwind Bottling Plant', CONFIDENCE.LABELLED, 'Northwind Bottling Plant'],
  customer_email: ['maria.lopez@northwind.example', CONFIDENCE.LABELLED, 'maria.lopez@northwind.example'],
  customer_phone: ['+34 612 345 678', CONFIDENCE.LABELLED, '+34 612 345 678'],
  total_amount: [1234.56, CONFIDENCE.LABELLED, '€ 1.234,56'],
  currency: ['EUR', CONFIDENCE.LABELLED, 'EUR'],
  paid: [false, CONFIDENCE.LABELLED, 'no'],
  line_items: [
    ['Hydraulic pump seal kit', 'Bearing 6204-2RS', 'On-site labour, 3 hours'],
    CONFIDENCE.NEXT_LINE,
    '- Hydraulic pump seal kit\n- Bearing 6204-2RS\n- On-site labour, 3 hours',
  ],
};

describe('built-in engine: sample invoice', () => {
  it('extracts every field from the text with its span', () => {
    const text = fixture('invoice.txt');
    expect(summary(text, extractBuiltIn(INVOICE_FIELDS, text))).toEqual(INVOICE_EXPECTED);
  });

  it('extracts the same fields from the invoice as a PDF (pdfkit → pdf-parse)', async () => {
    const text = await pdfText(await invoicePdf(fixture('invoice.txt')));
    expect(text).toContain('Invoice No.: INV-2026-0042');
    expect(summary(text, extractBuiltIn(INVOICE_FIELDS, text))).toEqual(INVOICE_EXPECTED);
  });
});

describe('built-in engine: sample work order', () => {
  it('extracts every field, and leaves a missing required field empty', () => {
    const text = fixture('work-order.txt');
    const fields = extractBuiltIn(WORK_ORDER_FIELDS, text);
    expect(summary(text, fields)).toEqual({
      work_order_number: ['WO-2026-0117', CONFIDENCE.LABELLED, 'WO-2026-0117'],
      asset_tag: ['PUMP-07', CONFIDENCE.LABELLED, 'PUMP-07'],
      priority: ['high', CONFIDENCE.LABELLED, 'High'],
      scheduled_date: ['2026-03-12', CONFIDENCE.LABELLED, '12 March 2026'],
      requester_email: ['ops.lead@northwind.example', CONFIDENCE.NEXT_LINE, 'ops.lead@northwind.example'],
      technician_phone: ['+44 20 7946 0958', CONFIDENCE.LABELLED, '+44 20 7946 0958'],
      estimated_hours: [3.5, CONFIDENCE.LABELLED, '3,5'],
      lockout_required: [true, CONFIDENCE.LABELLED, 'yes'],
      spare_parts: [['seal kit', 'bearing 6204-2RS', 'gasket'], CONFIDENCE.LABELLED, 'seal kit, bearing 6204-2RS, gasket'],
      tasks: [
        ['Isolate the pump and apply lockout', 'Replace the mechanical seal', 'Test run for 30 minutes'],
        CONFIDENCE.NEXT_LINE,
        '1. Isolate the pump and apply lockout\n2. Replace the mechanical seal\n3. Test run for 30 minutes',
      ],
      contract_number: [null, 0, null],
    });
    expect(missingRequired(WORK_ORDER_FIELDS, fields)).toEqual(['contract_number']);
  });
});

describe('built-in engine: rules', () => {
  it('prefers a value right after the label over one later on a label line, and a label over the type alone', () => {
    const text = 'Shipped 01/02/2026\nTotal VAT (21%): $ 210.00\nTotal: $1,210.00\n';
    const total = extractField({ name: 'total', type: 'number' }, text);
    expect([total.value, total.confidence, total.source?.text]).toEqual([1210, CONFIDENCE.LABELLED, '$1,210.00']);
    const due = extractField({ name: 'due_date', type: 'date' }, text);
    expect([due.value, due.confidence, due.source?.text]).toEqual(['2026-02-01', CONFIDENCE.TYPE_ONLY, '01/02/2026']);
  });

  it('reads the number formats and date formats it documents', () => {
    const values = (line: string, type: 'number' | 'date') => extractField({ name: 'value', type }, `Value: ${line}`).value;
    expect(['1,234.56', '1.234,56', '€1.234.567', '3,5', '1,234', '-12', 'USD 99'].map((n) => values(n, 'number'))).toEqual([1234.56, 1234.56, 1234567, 3.5, 1234, -12, 99]);
    expect(['2026-03-12', '12/03/2026', '12.03.2026', '12 March 2026', '12th Mar 2026', 'March 12, 2026', '31/02/2026'].map((d) => values(d, 'date'))).toEqual([
      '2026-03-12',
      '2026-03-12',
      '2026-03-12',
      '2026-03-12',
      '2026-03-12',
      '2026-03-12',
      null,
    ]);
  });

  it('finds an enum value by type alone with lower confidence when the label is missing', () => {
    const r = extractField({ name: 'priority', type: 'enum', values: ['low', 'high'] }, 'This is urgent: HIGH impact on line 2.');
    expect([r.value, r.confidence, r.source?.text]).toEqual(['high', CONFIDENCE.TYPE_ONLY_ENUM, 'HIGH']);
  });
});

describe('chunks', () => {
  it('splits a long document at line breaks with overlap, and the merged result equals the single-pass one', () => {
    const filler = Array.from({ length: 400 }, (_, i) => `Line ${i} of the maintenance history with nothing to extract.`).join('\n');
    const text = `${filler}\n${fixture('invoice.txt')}\n${filler}`;
    const chunks = planChunks(text, { maxChars: 4_000, overlapChars: 300 });
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks[0].start).toBe(0);
    expect(chunks[chunks.length - 1].end).toBe(text.length);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i].start).toBe(chunks[i - 1].end - 300);
      expect(text[chunks[i - 1].end - 1]).toBe('\n');
    }
    const results = chunks.map((c) => ({ engine: 'built-in' as const, model: 'built-in', fields: extractBuiltIn(INVOICE_FIELDS, text.slice(c.start, c.end), c.start) }));
    const merged = mergeChunkResults(INVOICE_FIELDS, results);
    expect(merged.engine).toBe('built-in');
    expect(merged.notice).toBeNull();
    expect(summary(text, merged.fields)).toEqual(INVOICE_EXPECTED);
  });
});
