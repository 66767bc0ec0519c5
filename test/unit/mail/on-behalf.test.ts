/**
 * The tenant marks of the platform's mail: the tenant in the display name (cut, without control
 * characters), the headers and the closing line; the address stays the platform's.
 */
import { tenantMailMarks, withFooter } from '../../../domain/mail/on-behalf';

const ID = '0b6f3f9e-5b0a-4a53-9d0e-3f1f3c2a9b10';

describe('tenantMailMarks', () => {
  it("names the tenant in the display name, the headers and the closing line, from the platform's address", () => {
    const marks = tenantMailMarks({ id: ID, name: 'Acme Plant' }, 'Industrial Ops <no-reply@ops.example.com>');
    expect(marks).toEqual({
      from: { name: 'Acme Plant via Industrial Ops', address: 'no-reply@ops.example.com' },
      headers: { 'X-Tenant-Id': ID, 'X-Sent-On-Behalf-Of': 'Acme Plant' },
      footer: `Sent by Industrial Ops on behalf of Acme Plant (tenant ${ID}).`,
    });
    expect(withFooter('Attached: the report.', marks)).toBe(`Attached: the report.\n\n--\nSent by Industrial Ops on behalf of Acme Plant (tenant ${ID}).`);
  });

  it('keeps line breaks out of the headers and long names out of the display name', () => {
    const marks = tenantMailMarks({ id: ID, name: 'Evil\r\nBcc: victim@example.com' }, 'no-reply@ops.example.com');
    expect(marks.headers['X-Sent-On-Behalf-Of']).toBe('Evil Bcc: victim@example.com');
    expect(marks.from).toEqual({ name: 'Evil Bcc: victim@example.com via no-reply@ops.example.com', address: 'no-reply@ops.example.com' });
    const long = tenantMailMarks({ id: ID, name: 'A'.repeat(100) }, 'Ops <no-reply@ops.example.com>');
    expect(long.from.name).toBe(`${'A'.repeat(63)}… via Ops`);
    expect(long.headers['X-Sent-On-Behalf-Of']).toBe('A'.repeat(100));
    // A name of nothing printable: the id stands for it.
    expect(tenantMailMarks({ id: ID, name: '\u0007' }, 'Ops <no-reply@ops.example.com>').from.name).toBe(`${ID} via Ops`);
  });
});
