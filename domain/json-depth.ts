/**
 * The shape a JSON body may have, checked on its text before it is parsed, so that no walk of it
 * (validation, a copy, a schema library) recurses past the stack or spends seconds on members no
 * schema admits.
 *
 * - MAX_JSON_DEPTH: deeper than any body of the API (a machine event's data, a tool's schema).
 *   Also the depth `assertStorable` (api/validation.ts) walks to.
 * - MAX_JSON_MEMBERS: members of one array or object; the longest array a schema admits is a batch
 *   of 500 readings. Joi validates an array's items before its length: 20 000 valid readings past
 *   the batch's maximum took 0.5 s of the event loop, 2 000 about 50 ms.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_MEMBERS = 2_000;

export type JsonShapeExcess = 'depth' | 'members' | null;

/**
 * What of the bounds JSON text exceeds first, if any: one linear pass over the characters,
 * brackets and commas inside strings (escapes included) not counted. Malformed text is left to the
 * parser; this only says whether it may be parsed at all.
 */
export function jsonShapeExcess(text: string, maxDepth = MAX_JSON_DEPTH, maxMembers = MAX_JSON_MEMBERS): JsonShapeExcess {
  // commas[d]: separators seen in the open container at depth d (its members, less one).
  const commas: number[] = [0];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return 'depth';
      commas[depth] = 0;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && depth > 0 && ++commas[depth]! >= maxMembers) return 'members';
  }
  return null;
}
