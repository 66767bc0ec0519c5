/**
 * Extraction templates, without HTTP: the lookup, the name rule and the delete rule that
 * api/routes/extraction-templates.ts (resourceRoutes) applies around its standard writes.
 */
import { deleteTemplateExtractions, findTemplate, templateNameTaken, TemplateRow, templateUsage } from '../db/queries/extractions';
import { findOr404 } from '../db/find-or-404';
import type { TenantScope } from '../db/tenant-scope';
import type { TemplateField } from '../domain/extraction/types';
import { AppError, conflict } from '../domain/errors';

export type TemplateBody = { name?: string; description?: string | null; fields?: TemplateField[] };

export function requireTemplate(scope: TenantScope, id: string): Promise<TemplateRow> {
  return findOr404('extraction template', id, () => findTemplate(scope, id));
}

/** Names are unique per tenant, case-insensitively (409). */
export async function assertTemplateNameFree(scope: TenantScope, name: string, exceptId?: string): Promise<void> {
  if (await templateNameTaken(scope, name, exceptId)) throw conflict(`an extraction template named "${name}" exists`);
}

/** The columns a body writes (fields as JSON). */
export const templateColumns = (body: TemplateBody) => ({ ...body, ...(body.fields ? { fields: JSON.stringify(body.fields) } : {}) });

/** Refuses (409) while records or unfinished jobs use the template; finished jobs without a record go with it. */
export async function prepareTemplateDelete(scope: TenantScope, template: TemplateRow): Promise<void> {
  const usage = await templateUsage(scope, template.id);
  if (usage.records > 0 || usage.pendingExtractions > 0) {
    throw new AppError('CONFLICT', `the template is used by ${usage.records} record(s) and ${usage.pendingExtractions} unfinished extraction(s); delete the records first`, {
      records: usage.records,
      pending_extractions: usage.pendingExtractions,
    });
  }
  await deleteTemplateExtractions(scope, template.id);
}
