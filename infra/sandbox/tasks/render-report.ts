/** A report document drawn inside a sandbox child: the logo it embeds is decoded here, never in a shared process. */
import type { RenderBranding } from '../../reports/branding';
import type { TaskInput, TaskOutput } from '../protocol';

export async function renderReportTask(input: TaskInput<'render-report'>): Promise<TaskOutput<'render-report'>> {
  const logo = input.branding.logo;
  // Structured clone hands the logo over as a Uint8Array; pdfkit and write-excel-file want a Buffer.
  const branding: RenderBranding = { ...input.branding, logo: logo ? { ...logo, bytes: Buffer.from(logo.bytes) } : null };
  // Loaded on first use: a child that only reads PDFs never loads the renderers.
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (input.format === 'pdf') return { bytes: await (require('../../reports/pdf') as typeof import('../../reports/pdf')).renderPdf(input.document, branding) };
  return { bytes: await (require('../../reports/xlsx') as typeof import('../../reports/xlsx')).renderXlsx(input.document, branding) };
  /* eslint-enable @typescript-eslint/no-require-imports */
}
