/**
 * Hostile JSON, deterministic: nesting far past any schema (a recursive walk of it overflows the
 * stack), objects and arrays of very many members, and the WhatsApp Cloud API envelope carrying
 * either. Each answers the text; its size is what the caller checks against a route's limit.
 */

/** `[[[...]]]`, `depth` levels: 2 bytes a level. */
export function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** `{"a":{"a":...1}}`, `depth` levels: 6 bytes a level. */
export function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** An object of `keys` members `"k0":0, "k1":1, ...`. */
export function wideObject(keys: number): string {
  const members: string[] = [];
  for (let i = 0; i < keys; i++) members.push(`"k${i}":${i}`);
  return `{${members.join(',')}}`;
}

/** An array of `items` small objects. */
export function wideArray(items: number): string {
  const members: string[] = [];
  for (let i = 0; i < items; i++) members.push(`{"i":${i}}`);
  return `[${members.join(',')}]`;
}

/** The WhatsApp webhook's envelope with `inner` (JSON text) as its one entry. */
export function whatsappEnvelope(inner: string): string {
  return `{"object":"whatsapp_business_account","entry":[${inner}]}`;
}
