/**
 * Report documents as XLSX (write-excel-file): a summary sheet (branding, title, key figures) and
 * one sheet per table, with typed cells (numbers as numbers, times as dates), the header row in the
 * branding's primary colour, frozen, with a filter. Percent cells hold 0..100, as in the PDF and
 * the API.
 */
import writeXlsxFile, { type Cell as XlsxCell, type CellObject, type Feature, type Image, type Row, type Sheet } from 'write-excel-file/node';
import { getCellAddress, getOrderOfSiblings, getSelfClosingTagMarkup, insertElementMarkupAccordingToOrderOfSiblings } from 'write-excel-file/utility';
import { Cell, Column, ColumnKind, KeyFigure, ReportDocument, TableSection } from '../../domain/reports/document';
import { RenderBranding } from './branding';

const NUMBER_FORMATS: Readonly<Record<ColumnKind, string | undefined>> = {
  text: undefined,
  integer: '0',
  decimal: '0.00',
  percent: '0.00" %"',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm',
};
/** The logo's size on the summary sheet, in pixels, and the rows it covers above the company name. */
const LOGO_PIXELS = 64;
const LOGO_ROWS = 4;
/** What the Node build takes as file content (a Buffer, a stream or a Blob). */
type Content = Image['content'];

const headerCell = (value: string, branding: RenderBranding): CellObject => ({
  value,
  fontWeight: 'bold',
  textColor: '#FFFFFF',
  backgroundColor: branding.primaryColor,
  alignVertical: 'center',
});

/** A value of the document as a typed cell in its column's format; null stays an empty cell. */
function typedCell(value: Cell, kind: ColumnKind): XlsxCell {
  if (value === null) return null;
  const format = NUMBER_FORMATS[kind];
  if (value instanceof Date) return { value, type: Date, format: format ?? NUMBER_FORMATS.datetime };
  if (typeof value === 'number') return format ? { value, type: Number, format } : { value, type: Number };
  return { value, type: String };
}

function summarySheet(report: ReportDocument, branding: RenderBranding): Sheet<Content> {
  const rows: Row[] = branding.logo ? Array.from({ length: LOGO_ROWS }, () => []) : [];
  rows.push(
    [{ value: branding.companyName, fontWeight: 'bold', fontSize: 14, textColor: branding.primaryColor }],
    [{ value: report.title, fontWeight: 'bold', fontSize: 12 }],
    [report.subtitle],
    ['Generated', typedCell(report.generatedAt, 'datetime')],
    [],
    [headerCell('Key figure', branding), headerCell('Value', branding)],
    ...report.keyFigures.map((figure: KeyFigure): Row => [figure.label, typedCell(figure.value, figure.kind)]),
  );
  if (branding.footerText) rows.push([], [branding.footerText]);
  const images: Image[] = branding.logo
    ? [{ content: branding.logo.bytes, contentType: branding.logo.contentType, width: LOGO_PIXELS, height: LOGO_PIXELS, dpi: 96, anchor: { row: 1, column: 1 } }]
    : [];
  return { sheet: 'Summary', data: rows, columns: [{ width: 32 }, { width: 22 }], images };
}

function columnWidth(column: Column, section: TableSection, index: number): number {
  if (column.kind === 'datetime') return 18;
  if (column.kind === 'date') return 12;
  const longest = Math.max(column.header.length, ...section.rows.slice(0, 200).map((r) => String(r[index] ?? '').length));
  return Math.min(60, Math.max(10, longest + 2));
}

function tableSheet(section: TableSection, branding: RenderBranding): Sheet<Content> {
  return {
    sheet: section.sheet,
    data: [section.columns.map((c) => headerCell(c.header, branding)), ...section.rows.map((row) => row.map((cell, i) => typedCell(cell, section.columns[i]!.kind)))],
    columns: section.columns.map((c, i) => ({ width: columnWidth(c, section, i) })),
    stickyRowsCount: 1,
  };
}

/** A filter on the header row of the sheets at `columnsBySheet`'s indexes (write-excel-file has none of its own). */
function headerFilters(columnsBySheet: ReadonlyMap<number, number>): Feature<Content> {
  return {
    files: {
      transform: {
        'xl/worksheets/sheet{id}.xml': {
          transform(xml, _options, { sheetIndex }) {
            const columns = columnsBySheet.get(sheetIndex);
            if (!columns) return xml;
            const filter = getSelfClosingTagMarkup('autoFilter', { ref: `${getCellAddress(0, 0)}:${getCellAddress(0, columns - 1)}` });
            return insertElementMarkupAccordingToOrderOfSiblings(xml, filter, getOrderOfSiblings('xl/worksheets/sheet{id}.xml', 'worksheet') ?? [], 'worksheet');
          },
        },
      },
    },
  };
}

export async function renderXlsx(report: ReportDocument, branding: RenderBranding): Promise<Buffer> {
  const tables = report.sections.filter((section): section is TableSection => section.kind === 'table');
  const filters = new Map(tables.map((table, i) => [i + 1, table.columns.length]));
  return writeXlsxFile([summarySheet(report, branding), ...tables.map((table) => tableSheet(table, branding))], { features: [headerFilters(filters)] }).toBuffer();
}
