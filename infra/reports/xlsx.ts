/**
 * Report documents as XLSX (exceljs): a summary sheet (branding, title, key figures) and one sheet
 * per table, with typed cells (numbers as numbers, times as dates), the header row in the
 * branding's primary colour and frozen. Percent cells hold 0..100, as in the PDF and the API.
 */
import ExcelJS from 'exceljs';
import { Column, ColumnKind, KeyFigure, ReportDocument, TableSection } from '../../domain/reports/document';
import { RenderBranding } from './branding';

const NUMBER_FORMATS: Readonly<Record<ColumnKind, string | undefined>> = {
  text: undefined,
  integer: '0',
  decimal: '0.00',
  percent: '0.00" %"',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm',
};

const argb = (hex: string) => `FF${hex.slice(1).toUpperCase()}`;

function styleHeader(row: ExcelJS.Row, branding: RenderBranding): void {
  row.eachCell((cell) => {
    cell.font = { bold: true, color: { argb: 'FFFFFFFF' } };
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: argb(branding.primaryColor) } };
    cell.alignment = { vertical: 'middle' };
  });
}

function summarySheet(workbook: ExcelJS.Workbook, report: ReportDocument, branding: RenderBranding): void {
  const sheet = workbook.addWorksheet('Summary');
  sheet.columns = [{ width: 32 }, { width: 22 }];
  const firstRow = branding.logo ? 5 : 1;
  if (branding.logo) {
    const image = workbook.addImage({ buffer: branding.logo.bytes as unknown as ExcelJS.Buffer, extension: branding.logo.contentType === 'image/png' ? 'png' : 'jpeg' });
    sheet.addImage(image, { tl: { col: 0, row: 0 }, ext: { width: 64, height: 64 } });
  }
  const company = sheet.getCell(firstRow, 1);
  company.value = branding.companyName;
  company.font = { bold: true, size: 14, color: { argb: argb(branding.primaryColor) } };
  sheet.getCell(firstRow + 1, 1).value = report.title;
  sheet.getCell(firstRow + 1, 1).font = { bold: true, size: 12 };
  sheet.getCell(firstRow + 2, 1).value = report.subtitle;
  sheet.getCell(firstRow + 3, 1).value = 'Generated';
  const generated = sheet.getCell(firstRow + 3, 2);
  generated.value = report.generatedAt;
  generated.numFmt = NUMBER_FORMATS.datetime as string;

  const header = sheet.getRow(firstRow + 5);
  header.values = ['Key figure', 'Value'];
  styleHeader(header, branding);
  report.keyFigures.forEach((figure: KeyFigure, i) => {
    const row = sheet.getRow(firstRow + 6 + i);
    row.getCell(1).value = figure.label;
    row.getCell(2).value = figure.value;
    row.getCell(2).numFmt = NUMBER_FORMATS[figure.kind] as string;
  });
  if (branding.footerText) sheet.getCell(firstRow + 7 + report.keyFigures.length, 1).value = branding.footerText;
}

function columnWidth(column: Column, section: TableSection, index: number): number {
  if (column.kind === 'datetime') return 18;
  if (column.kind === 'date') return 12;
  const longest = Math.max(column.header.length, ...section.rows.slice(0, 200).map((r) => String(r[index] ?? '').length));
  return Math.min(60, Math.max(10, longest + 2));
}

function tableSheet(workbook: ExcelJS.Workbook, section: TableSection, branding: RenderBranding): void {
  const sheet = workbook.addWorksheet(section.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = section.columns.map((c, i) => ({ header: c.header, width: columnWidth(c, section, i), style: NUMBER_FORMATS[c.kind] ? { numFmt: NUMBER_FORMATS[c.kind] } : {} }));
  styleHeader(sheet.getRow(1), branding);
  for (const row of section.rows) sheet.addRow(row.map((cell) => (cell === null ? null : cell)));
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: section.columns.length } };
}

export async function renderXlsx(report: ReportDocument, branding: RenderBranding): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = branding.companyName;
  workbook.title = report.title;
  workbook.created = report.generatedAt;
  summarySheet(workbook, report, branding);
  for (const section of report.sections) if (section.kind === 'table') tableSheet(workbook, section, branding);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
