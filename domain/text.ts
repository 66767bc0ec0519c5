/**
 * Text that arrives from a document or a provider rather than from an API client (a parsed email,
 * a WhatsApp message, a PDF's text) is kept, not refused: its NUL characters, which PostgreSQL
 * cannot store, become U+FFFD. One UTF-16 unit for one, so offsets into the text (source spans of
 * extractions) stay valid. Client input is refused instead (api/validation.ts).
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

export function storableOrNull(text: string | null | undefined): string | null {
  return text == null ? null : storableText(text);
}

/** A provider's parsed JSON payload with every NUL in its strings and keys made U+FFFD (a deep copy). */
export function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value === null || typeof value !== 'object') return value;
  // defineProperty: even a "__proto__" key stays an own key (the shared validation refuses it next).
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    Object.defineProperty(out, storableText(key), { value: storableJson(inner), enumerable: true, writable: true, configurable: true });
  return out;
}
