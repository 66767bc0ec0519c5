/**
 * A report as the renderers see it, independent of PDF or XLSX: key figures, tables with typed
 * columns and bar charts. Each report type shapes its data into one of these (pure), and both
 * renderers draw the same document, so the PDF and the workbook always show the same numbers.
 */

export type ColumnKind = 'text' | 'integer' | 'decimal' | 'percent' | 'date' | 'datetime';

export interface Column {
  readonly header: string;
  readonly kind: ColumnKind;
  /** Relative width in the PDF (default 1). */
  readonly weight?: number;
}

/** Numbers for integer/decimal/percent (percent as 0..100), Date for date/datetime, null = "–". */
export type Cell = string | number | Date | null;

export interface TableSection {
  readonly kind: 'table';
  readonly title: string;
  /** Also the XLSX sheet name (<= 31 characters, unique within a report). */
  readonly sheet: string;
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Cell[])[];
  /** Shown instead of an empty table. */
  readonly emptyText: string;
}

export interface Bar {
  readonly label: string;
  /** null: no value (drawn as "n/a", e.g. a month where nothing was due). */
  readonly value: number | null;
  /** #RRGGBB; the branding's primary colour when absent. */
  readonly color?: string;
}

export interface BarChartSection {
  readonly kind: 'bar_chart';
  readonly title: string;
  readonly bars: readonly Bar[];
  /** Axis maximum; the largest value (at least 1) when absent. */
  readonly max?: number;
  readonly unit: 'count' | 'percent';
}

export type ReportSection = TableSection | BarChartSection;

export interface KeyFigure {
  readonly label: string;
  readonly value: number | null;
  readonly kind: 'integer' | 'decimal' | 'percent';
}

export interface ReportDocument {
  readonly title: string;
  /** e.g. "Period 2026-01-01 – 2026-03-31" or "As of 2026-03-05 10:00 UTC". */
  readonly subtitle: string;
  readonly generatedAt: Date;
  readonly keyFigures: readonly KeyFigure[];
  readonly sections: readonly ReportSection[];
}

/** A report larger than its render may take: `rows` of `what` (its tables' rows, or the rows read to shape it) against `maxRows`. */
export class ReportTooLargeError extends Error {
  constructor(
    readonly what: 'table rows' | 'rows read',
    readonly rows: number,
    readonly maxRows: number,
  ) {
    super(`the report needs more than ${maxRows} ${what}`);
    this.name = 'ReportTooLargeError';
  }
}

/** Rows of every table of the document: what a render's cost grows with. */
export function tableRows(document: ReportDocument): number {
  return document.sections.reduce((sum, section) => sum + (section.kind === 'table' ? section.rows.length : 0), 0);
}

/** Percentages in reports: 2 decimals; null when there is nothing to divide. */
export function percentOf(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 100;
}

/** "2026-03-05 10:00 UTC" */
export function formatUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A cell as text (PDF tables, e-mail bodies): percent with %, dates as ISO days, null as an en dash. */
export function cellText(cell: Cell, kind: ColumnKind): string {
  if (cell === null || cell === undefined) return '–';
  if (cell instanceof Date) return kind === 'date' ? cell.toISOString().slice(0, 10) : formatUtc(cell);
  if (typeof cell === 'number') {
    if (kind === 'percent') return `${cell.toFixed(2)} %`;
    if (kind === 'decimal') return cell.toFixed(2);
    return String(cell);
  }
  return cell;
}
