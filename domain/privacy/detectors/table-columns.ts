// A value in a cell of a delimited table (CSV, semicolon, tab or pipe rows pasted into a mail) is
// governed by its column's header, not by the words before it on its line, which are other cells
// ("naam,bsn,mobiel" over "M. Bakker,843-988-514,+31 ..."). A header counts within TABLE_REACH
// above the value, so a verdict reads a bounded slice (docs/SECURITY.md, Text matching).

import { MASK_CHAR } from './non-phone-numerals';

/** How far above a value its column's header is read: the header and some twenty short rows. */
export const TABLE_REACH = 1024;
/** A longer line is no table row (and bounds what one verdict reads on its own line). */
const MAX_LINE = 400;
const DELIMITERS = [',', ';', '\t', '|'];
const QUOTE = /["']/;
// A digit, or a digit masked with a date (non-phone-numerals.ts): a row's, never a header's.
const DIGIT_OR_MASK = new RegExp(String.raw`[\d${MASK_CHAR}]`);
// "id", "No.", "#": a column of identifiers of any kind, a person's or a thing's; it names none.
const GENERIC_HEADER = /^["']?(?:id|ids|no\.?|nr\.?|n[°º]|#)["']?$/i;

/** How many times `delimiter` occurs in text[from, to). */
function count(text: string, from: number, to: number, delimiter: string): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text[i] === delimiter) n += 1;
  return n;
}

interface Row {
  readonly start: number;
  /** Where its content ends (before its line break). */
  readonly end: number;
  readonly delimiter: string;
  readonly cells: number;
  /** The header cells above it, or null. */
  readonly header: readonly string[] | null;
  readonly headerStart: number;
}

/**
 * The column headers of one text's tables. The detectors ask about values in text order, so the
 * last row read is kept: a value on the same row or on the row below reuses it, and only a row
 * after a jump reads up to TABLE_REACH characters above it.
 */
export class TableColumns {
  private last: Row | null = null;
  /** The last value's cell on the last row: its start and column, to count on from there. */
  private lastCell = { open: -1, column: 0 };

  constructor(private readonly text: string) {}

  /** Where the line holding `at` starts, or -1 when it starts more than MAX_LINE before (or before `floor`). */
  private lineStart(at: number, floor = 0): number {
    const limit = Math.max(floor, at - MAX_LINE);
    let from = at;
    while (from > limit && this.text[from - 1] !== '\n') from -= 1;
    return from === 0 || this.text[from - 1] === '\n' ? from : -1;
  }

  /** The last line start asked for a value (-1: none within MAX_LINE), so that a long line is read back once, not per value. */
  private lastAsked = { at: -1, start: -1 };

  /** Where the line holding the value at `at` starts (lineStart, read back no further than the last value asked about). */
  private rowStartOf(at: number): number {
    const since = this.lastAsked.at >= 0 && this.lastAsked.at <= at ? this.lastAsked.at : -1;
    let start: number;
    if (since < 0 || at - since >= MAX_LINE) start = this.lineStart(at);
    else {
      let from = at;
      while (from > since && this.text[from - 1] !== '\n') from -= 1;
      // No break since the last value: the same line, too long once it is more than MAX_LINE long.
      start = from > since || this.text[from - 1] === '\n' || from === 0 ? from : this.lastAsked.start;
      if (start >= 0 && at - start > MAX_LINE) start = -1;
    }
    this.lastAsked = { at, start };
    return start;
  }

  /** Where the line starting at `start` ends, before its line break (or MAX_LINE + 1 after its start). */
  private lineEnd(start: number): number {
    let end = start;
    while (end < this.text.length && this.text[end] !== '\n' && end - start <= MAX_LINE) end += 1;
    return end > start && this.text[end - 1] === '\r' ? end - 1 : end;
  }

  /** The row starting at `start`, with the header above it (reusing the last row when it is the row above). */
  private rowAt(start: number, delimiter: string): Row | null {
    if (this.last?.start === start && this.last.delimiter === delimiter) return this.last;
    const end = this.lineEnd(start);
    if (end - start > MAX_LINE) return null;
    const cells = count(this.text, start, end, delimiter);
    const above = this.last;
    const continues = above !== null && above.delimiter === delimiter && above.cells === cells && this.lineStart(start - 1, above.start) === above.start;
    const { header, headerStart } = continues ? above : this.headerAbove(start, delimiter, cells);
    this.last = { start, end, delimiter, cells, header, headerStart };
    this.lastCell = { open: -1, column: 0 };
    return this.last;
  }

  /** The first line without digits above `rowStart`, within TABLE_REACH, each line between with `cells` cells. */
  private headerAbove(rowStart: number, delimiter: string, cells: number): { header: readonly string[] | null; headerStart: number } {
    const floor = Math.max(0, rowStart - TABLE_REACH);
    for (let lineEnd = rowStart - 1; lineEnd > floor;) {
      const above = this.lineStart(lineEnd, floor);
      if (above < 0) break;
      const end = lineEnd > above && this.text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
      if (count(this.text, above, end, delimiter) !== cells) break;
      const line = this.text.slice(above, end);
      if (!DIGIT_OR_MASK.test(line)) return { header: line.split(delimiter).map((cell) => cell.trim()), headerStart: above };
      lineEnd = above - 1;
    }
    return { header: null, headerStart: -1 };
  }

  /**
   * The header cell of the column holding [start, end), when the value is a whole cell of a table
   * whose header (a line without digits, with as many cells as each row below it) starts within
   * TABLE_REACH above; otherwise null.
   */
  headerOf(start: number, end: number): string | null {
    const open = QUOTE.test(this.text[start - 1] ?? '') ? start - 1 : start;
    const close = QUOTE.test(this.text[end] ?? '') ? end + 1 : end;
    const delimiter = this.text[open - 1];
    if (delimiter === undefined || !DELIMITERS.includes(delimiter)) return null;
    const after = this.text[close];
    if (after !== undefined && after !== delimiter && after !== '\r' && after !== '\n') return null;
    const rowStart = this.last !== null && this.last.start < open && open <= this.last.end ? this.last.start : this.rowStartOf(open);
    if (rowStart < 0) return null;
    const row = this.rowAt(rowStart, delimiter);
    if (row?.header == null || row.headerStart < start - TABLE_REACH) return null;
    const from = this.lastCell.open >= 0 && this.lastCell.open <= open ? this.lastCell : { open: rowStart, column: 0 };
    const column = from.column + count(this.text, from.open, open, delimiter);
    this.lastCell = { open, column };
    const cell = row.header[column];
    return cell === undefined || GENERIC_HEADER.test(cell) ? null : cell;
  }
}

/** The header of the column holding [start, end) (TableColumns.headerOf), for one value of a text. */
export function columnHeaderOf(text: string, start: number, end: number): string | null {
  return new TableColumns(text).headerOf(start, end);
}
