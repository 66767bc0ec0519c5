/**
 * Deeper than any body of the API (a machine-event payload, a tool's schema): a body nested further
 * is refused before it is parsed, so no walk of it (validation, a copy, a schema library) can
 * recurse past the stack. Also the depth `assertStorable` (api/validation.ts) walks to.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`: one linear pass over the
 * characters, brackets inside strings (escapes included) not counted. Malformed text is left to
 * the parser; this only says whether it may be parsed at all.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
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
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
