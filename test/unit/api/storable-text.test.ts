import { storableOrNull, storableText } from '../../../domain/text';

describe('storableText', () => {
  it('replaces each NUL by one U+FFFD, so offsets into the text stay valid', () => {
    const text = 'invoice\u0000 INV-77\u0000\u0000 total';
    const kept = storableText(text);
    expect(kept).toBe('invoice\uFFFD INV-77\uFFFD\uFFFD total');
    expect(kept.length).toBe(text.length);
    expect(kept.indexOf('INV-77')).toBe(text.indexOf('INV-77'));
  });

  it('leaves other text as it is, and null as null', () => {
    expect(storableText('Pump P-101 ✓ 😀')).toBe('Pump P-101 ✓ 😀');
    expect(storableOrNull(null)).toBeNull();
    expect(storableOrNull(undefined)).toBeNull();
  });
});
