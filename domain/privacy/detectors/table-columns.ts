// A value in a cell of a delimited table (CSV, semicolon, tab or pipe rows pasted into a mail) is
// governed by its column's header, not by the words before it on its line, which are other cells
// ("naam,bsn,mobiel" over "M. Bakker,843-988-514,+31 ..."). Reads a bounded slice before the value
// (TABLE_REACH), so a verdict costs the same at any position (docs/SECURITY.md, Text matching).

/** How far above a value its column's header is read: the header and some twenty short rows. */
export const TABLE_REACH = 1024;
/** A longer line is no table row (and bounds what one verdict reads). */
const MAX_LINE = 400;
const DELIMITERS = new Set([',', ';', '\t', '|']);
const QUOTE = /["']/;
// "id", "No.", "#": a column of identifiers of any kind, a person's or a thing's; it names none.
const GENERIC_HEADER = /^["']?(?:id|ids|no\.?|nr\.?|n[°º]|#)["']?$/i;

function lineStartOf(text: string, at: number, floor: number): number {
  let from = at;
  while (from > floor && text[from - 1] !== '\n') from -= 1;
  return from;
}

function count(line: string, delimiter: string): number {
  let n = 0;
  for (const ch of line) if (ch === delimiter) n += 1;
  return n;
}

/**
 * The header cell of the column holding [start, end), when the value is a whole cell of a table
 * whose header (a line without digits, with as many cells as each row below it) stands within
 * TABLE_REACH above; otherwise null.
 */
export function columnHeaderOf(text: string, start: number, end: number): string | null {
  const open = QUOTE.test(text[start - 1] ?? '') ? start - 1 : start;
  const close = QUOTE.test(text[end] ?? '') ? end + 1 : end;
  const delimiter = text[open - 1];
  if (delimiter === undefined || !DELIMITERS.has(delimiter)) return null;
  const after = text[close];
  if (after !== undefined && after !== delimiter && after !== '\r' && after !== '\n') return null;
  const floor = Math.max(0, start - TABLE_REACH);
  const lineStart = lineStartOf(text, open, Math.max(floor, open - MAX_LINE));
  if (lineStart > 0 && text[lineStart - 1] !== '\n') return null;
  let lineEnd = close;
  while (lineEnd < text.length && text[lineEnd] !== '\n' && lineEnd - lineStart <= MAX_LINE) lineEnd += 1;
  const row = text.slice(lineStart, lineEnd).replace(/\r$/, '');
  if (row.length > MAX_LINE) return null;
  const cells = count(row, delimiter);
  const column = count(text.slice(lineStart, open), delimiter);
  // Up the table, line by line, while each line has the row's cells: the first without digits is the header.
  for (let lineEndAbove = lineStart - 1; lineEndAbove > floor;) {
    const above = lineStartOf(text, lineEndAbove, Math.max(floor, lineEndAbove - MAX_LINE));
    if (above > 0 && text[above - 1] !== '\n') return null;
    const line = text.slice(above, lineEndAbove).replace(/\r$/, '');
    if (count(line, delimiter) !== cells) return null;
    if (!/\d/.test(line)) {
      const header = line.split(delimiter)[column].trim();
      return GENERIC_HEADER.test(header) ? null : header;
    }
    lineEndAbove = above - 1;
  }
  return null;
}
