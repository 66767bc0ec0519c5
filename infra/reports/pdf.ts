/**
 * Report documents as PDF (pdfkit): a branded title block (logo, company name on the primary
 * colour), key figures, bar charts drawn with vector primitives, tables that break across pages
 * with their header repeated, and on every page the footer text and "Page n of N".
 */
import PDFDocument from 'pdfkit';
import { BarChartSection, cellText, Column, KeyFigure, ReportDocument, TableSection } from '../../domain/reports/document';
import { RenderBranding } from './branding';

const MARGIN = 40;
const FOOTER_GAP = 24;
const ROW_HEIGHT = 16;
const TEXT = '#222222';
const MUTED = '#666666';
const GRID = '#D0D4D9';
const ZEBRA = '#F3F5F7';

type Doc = PDFKit.PDFDocument;

export async function renderPdf(report: ReportDocument, branding: RenderBranding): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN + FOOTER_GAP, left: MARGIN, right: MARGIN },
    bufferPages: true,
    info: { Title: report.title, Author: branding.companyName, Creator: 'Industrial Ops reports', CreationDate: report.generatedAt },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  titleBlock(doc, report, branding);
  keyFigures(doc, report.keyFigures, branding);
  for (const section of report.sections) {
    if (section.kind === 'table') table(doc, section, branding);
    else barChart(doc, section, branding);
  }
  pageDecorations(doc, report, branding);
  doc.end();
  return done;
}

const contentWidth = (doc: Doc) => doc.page.width - MARGIN * 2;
const bottomLimit = (doc: Doc) => doc.page.height - doc.page.margins.bottom;

/** Starts a new page when `height` does not fit below the cursor. */
function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > bottomLimit(doc)) doc.addPage();
}

function titleBlock(doc: Doc, report: ReportDocument, branding: RenderBranding): void {
  const bandHeight = 64;
  doc.save().rect(0, 0, doc.page.width, bandHeight).fill(branding.primaryColor).restore();
  let textX = MARGIN;
  if (branding.logo) {
    // A white tile keeps a dark logo visible on a dark band.
    doc.save().roundedRect(MARGIN, 8, 48, 48, 4).fill('#FFFFFF').restore();
    try {
      doc.image(branding.logo.bytes, MARGIN + 4, 12, { fit: [40, 40], align: 'center', valign: 'center' });
      textX = MARGIN + 60;
    } catch {
      // An undecodable logo is left out rather than failing the report.
    }
  }
  doc
    .fillColor('#FFFFFF')
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(branding.companyName, textX, 22, { width: doc.page.width - textX - MARGIN, lineBreak: false, ellipsis: true });
  doc.y = bandHeight + 18;
  doc
    .fillColor(TEXT)
    .font('Helvetica-Bold')
    .fontSize(16)
    .text(report.title, MARGIN, doc.y, { width: contentWidth(doc) });
  doc
    .moveDown(0.2)
    .fillColor(MUTED)
    .font('Helvetica')
    .fontSize(9)
    .text(report.subtitle, { width: contentWidth(doc) });
  doc.moveDown(0.2).text(`Generated ${report.generatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`, { width: contentWidth(doc) });
  doc.moveDown(1);
}

function figureText(figure: KeyFigure): string {
  return cellText(figure.value, figure.kind);
}

function keyFigures(doc: Doc, figures: readonly KeyFigure[], branding: RenderBranding): void {
  if (figures.length === 0) return;
  const perRow = Math.min(4, figures.length);
  const gap = 8;
  const boxWidth = (contentWidth(doc) - gap * (perRow - 1)) / perRow;
  const boxHeight = 44;
  for (let i = 0; i < figures.length; i += perRow) {
    ensureSpace(doc, boxHeight + gap);
    const y = doc.y;
    figures.slice(i, i + perRow).forEach((figure, j) => {
      const x = MARGIN + j * (boxWidth + gap);
      doc.save().rect(x, y, boxWidth, boxHeight).fill(ZEBRA).restore();
      doc.save().rect(x, y, 3, boxHeight).fill(branding.accentColor).restore();
      doc
        .fillColor(TEXT)
        .font('Helvetica-Bold')
        .fontSize(15)
        .text(figureText(figure), x + 10, y + 7, { width: boxWidth - 14, lineBreak: false });
      doc
        .fillColor(MUTED)
        .font('Helvetica')
        .fontSize(8)
        .text(figure.label, x + 10, y + 28, { width: boxWidth - 14, lineBreak: false, ellipsis: true });
    });
    doc.x = MARGIN;
    doc.y = y + boxHeight + gap;
  }
  doc.moveDown(0.8);
}

function sectionTitle(doc: Doc, title: string, branding: RenderBranding): void {
  doc
    .fillColor(branding.primaryColor)
    .font('Helvetica-Bold')
    .fontSize(12)
    .text(title, MARGIN, doc.y, { width: contentWidth(doc) });
  doc.moveDown(0.3);
}

function barChart(doc: Doc, chart: BarChartSection, branding: RenderBranding): void {
  const plotHeight = 150;
  const labelSpace = 28;
  ensureSpace(doc, 24 + plotHeight + labelSpace + 10);
  sectionTitle(doc, chart.title, branding);
  const top = doc.y + 12;
  const axisX = MARGIN + 34;
  const plotWidth = contentWidth(doc) - 34;
  const bottom = top + plotHeight;
  const max = chart.max ?? Math.max(1, ...chart.bars.map((b) => b.value ?? 0));
  const suffix = chart.unit === 'percent' ? ' %' : '';

  // Grid lines with their values at 0, 25, 50, 75 and 100 % of the axis.
  doc.font('Helvetica').fontSize(7);
  for (let k = 0; k <= 4; k++) {
    const y = bottom - (plotHeight * k) / 4;
    const value = (max * k) / 4;
    doc
      .save()
      .moveTo(axisX, y)
      .lineTo(axisX + plotWidth, y)
      .lineWidth(0.5)
      .strokeColor(k === 0 ? '#888888' : GRID)
      .stroke()
      .restore();
    const label = Number.isInteger(value) ? String(value) : value.toFixed(1);
    doc.fillColor(MUTED).text(`${label}${suffix}`, MARGIN - 6, y - 3.5, { width: 36, align: 'right', lineBreak: false });
  }

  const n = Math.max(1, chart.bars.length);
  const slot = plotWidth / n;
  const barWidth = Math.min(60, slot * 0.6);
  chart.bars.forEach((bar, i) => {
    const cx = axisX + slot * i + slot / 2;
    if (bar.value !== null) {
      const h = (Math.min(bar.value, max) / max) * plotHeight;
      doc
        .save()
        .rect(cx - barWidth / 2, bottom - h, barWidth, h)
        .fill(bar.color ?? branding.primaryColor)
        .restore();
    }
    // Same text as the tables: percent with two decimals, counts as integers.
    const valueText = bar.value === null ? 'n/a' : cellText(bar.value, chart.unit === 'percent' ? 'percent' : 'integer');
    const valueY = bar.value === null ? bottom - 12 : bottom - (Math.min(bar.value, max) / max) * plotHeight - 11;
    doc
      .fillColor(TEXT)
      .font('Helvetica-Bold')
      .fontSize(8)
      .text(valueText, cx - slot / 2, valueY, { width: slot, align: 'center', lineBreak: false });
    doc
      .fillColor(MUTED)
      .font('Helvetica')
      .fontSize(7.5)
      .text(bar.label, cx - slot / 2 + 2, bottom + 5, { width: slot - 4, align: 'center', height: labelSpace - 6, ellipsis: true });
  });
  doc.x = MARGIN;
  doc.y = bottom + labelSpace;
  doc.moveDown(0.8);
}

function columnWidths(doc: Doc, columns: readonly Column[]): number[] {
  const total = columns.reduce((s, c) => s + (c.weight ?? 1), 0);
  return columns.map((c) => (contentWidth(doc) * (c.weight ?? 1)) / total);
}

const isNumeric = (c: Column) => c.kind === 'integer' || c.kind === 'decimal' || c.kind === 'percent';

function tableHeader(doc: Doc, columns: readonly Column[], widths: number[], branding: RenderBranding): void {
  const y = doc.y;
  doc
    .save()
    .rect(MARGIN, y, contentWidth(doc), ROW_HEIGHT + 2)
    .fill(branding.primaryColor)
    .restore();
  let x = MARGIN;
  doc.fillColor('#FFFFFF').font('Helvetica-Bold').fontSize(7.5);
  columns.forEach((c, i) => {
    const w = widths[i] as number;
    doc.text(c.header, x + 3, y + 5, { width: w - 6, align: isNumeric(c) ? 'right' : 'left', lineBreak: false, ellipsis: true });
    x += w;
  });
  doc.x = MARGIN;
  doc.y = y + ROW_HEIGHT + 2;
}

function table(doc: Doc, section: TableSection, branding: RenderBranding): void {
  ensureSpace(doc, 24 + (ROW_HEIGHT + 2) + ROW_HEIGHT * Math.min(3, Math.max(1, section.rows.length)));
  sectionTitle(doc, section.title, branding);
  if (section.rows.length === 0) {
    doc
      .fillColor(MUTED)
      .font('Helvetica-Oblique')
      .fontSize(9)
      .text(section.emptyText, MARGIN, doc.y, { width: contentWidth(doc) });
    doc.moveDown(1.2);
    return;
  }
  const widths = columnWidths(doc, section.columns);
  tableHeader(doc, section.columns, widths, branding);
  section.rows.forEach((row, r) => {
    if (doc.y + ROW_HEIGHT > bottomLimit(doc)) {
      doc.addPage();
      doc
        .fillColor(MUTED)
        .font('Helvetica-Oblique')
        .fontSize(8)
        .text(`${section.title} (continued)`, MARGIN, doc.y, { width: contentWidth(doc) });
      doc.moveDown(0.2);
      tableHeader(doc, section.columns, widths, branding);
    }
    const y = doc.y;
    if (r % 2 === 1) doc.save().rect(MARGIN, y, contentWidth(doc), ROW_HEIGHT).fill(ZEBRA).restore();
    let x = MARGIN;
    doc.fillColor(TEXT).font('Helvetica').fontSize(7.5);
    section.columns.forEach((c, i) => {
      const w = widths[i] as number;
      doc.text(cellText(row[i] ?? null, c.kind), x + 3, y + 4.5, { width: w - 6, align: isNumeric(c) ? 'right' : 'left', lineBreak: false, ellipsis: true });
      x += w;
    });
    doc.x = MARGIN;
    doc.y = y + ROW_HEIGHT;
  });
  doc
    .save()
    .moveTo(MARGIN, doc.y)
    .lineTo(MARGIN + contentWidth(doc), doc.y)
    .lineWidth(0.5)
    .strokeColor(GRID)
    .stroke()
    .restore();
  doc.moveDown(1.2);
}

/** Footer (text and page numbers) on every page, and a running header on pages after the first. */
function pageDecorations(doc: Doc, report: ReportDocument, branding: RenderBranding): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing inside the margins must not trigger pdfkit's automatic page break.
    const margins = { ...doc.page.margins };
    doc.page.margins = { top: 0, bottom: 0, left: 0, right: 0 };
    const y = doc.page.height - MARGIN;
    doc
      .save()
      .moveTo(MARGIN, y - 6)
      .lineTo(doc.page.width - MARGIN, y - 6)
      .lineWidth(0.5)
      .strokeColor(branding.accentColor)
      .stroke()
      .restore();
    doc.fillColor(MUTED).font('Helvetica').fontSize(8);
    doc.text(branding.footerText ?? branding.companyName, MARGIN, y, { width: contentWidth(doc) - 80, lineBreak: false, ellipsis: true });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, doc.page.width - MARGIN - 80, y, { width: 80, align: 'right', lineBreak: false });
    if (i > range.start) {
      doc.text(`${branding.companyName} · ${report.title}`, MARGIN, MARGIN - 22, { width: contentWidth(doc), lineBreak: false, ellipsis: true });
    }
    doc.page.margins = margins;
  }
}
