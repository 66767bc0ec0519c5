/**
 * `/api/v1/extraction-templates` (issue 8): CRUD of extraction templates, named lists of typed
 * fields validated as a schema. Editing a template never changes existing records (each record
 * keeps the fields it was extracted with); a template that records or unfinished jobs use cannot be
 * deleted (409), finished jobs without a record go with it.
 */
import Joi from '../../domain/joi';
import { findTemplate, TEMPLATE_COLUMNS, TemplateRow, templateUsage } from '../../db/queries/extractions';
import { TenantScope } from '../../db/tenant-scope';
import type { TemplateField } from '../../domain/extraction/types';
import { AppError, conflict } from '../../domain/errors';

import { ApiRouter } from '../route';
import { templateFields, templateSchema, toTemplate } from '../resources/extraction';
import { findOr404 } from '../../db/find-or-404';
import { resourceRoutes } from '../resource-routes';

type TemplateBody = { name?: string; description?: string | null; fields?: TemplateField[] };

const templateBody = {
  name: Joi.string().trim().min(1).max(200),
  description: Joi.string().trim().max(2000).allow(null),
  fields: templateFields,
};

export function requireTemplate(scope: TenantScope, id: string): Promise<TemplateRow> {
  return findOr404('extraction template', id, () => findTemplate(scope, id));
}

async function assertNameFree(scope: TenantScope, name: string, exceptId?: string): Promise<void> {
  const q = scope.table('extraction_templates').whereRaw('lower(name) = lower(?)', [name]);
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw conflict(`an extraction template named "${name}" exists`);
}

const columns = (body: TemplateBody) => ({ ...body, ...(body.fields ? { fields: JSON.stringify(body.fields) } : {}) });

export function extractionTemplateRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/extraction-templates');

  const template = resourceRoutes(api, {
    path: '/:template_id',
    tags: ['extractions'],
    view: 'view_extractions',
    schema: templateSchema,
    find: requireTemplate,
    present: toTemplate,
    write: { permission: 'manage_extractions', audit: 'extraction_template', table: 'extraction_templates', columns: TEMPLATE_COLUMNS },
  });
  template.list({ summary: 'List extraction templates', found: 'A page of templates' });
  template.create<TemplateBody>(
    {
      summary: 'Create an extraction template',
      description:
        'Fields: `name` (snake_case, unique), `type` (string, number, date, enum, boolean, array), `required`, `instructions` ' +
        '(double-quoted phrases in them are also labels the built-in engine looks for), `values` (enum only, required), ' +
        '`items` (array only: string, number or date; default string).',
      body: Joi.object({ ...templateBody, name: templateBody.name.required(), fields: templateBody.fields.required() }),
      created: 'Created template',
      responses: { 409: { description: 'Name taken' }, 422: { description: 'Invalid fields' } },
    },
    { check: (unit, body) => assertNameFree(unit.scope, body.name!), columns, after: (_unit, _row, body) => ({ fields: body.fields!.map((f) => f.name) }) },
  );
  template.get({ summary: 'Get an extraction template', found: 'Template' });
  template.update<TemplateBody>(
    {
      summary: 'Update the fields sent; existing records keep the fields they were extracted with',
      body: Joi.object(templateBody).min(1),
      updated: 'Updated template',
      responses: { 409: { description: 'Name taken' } },
    },
    {
      check: async (unit, before, body) => {
        if (body.name) await assertNameFree(unit.scope, body.name, before.id);
      },
      columns,
      details: (body) => ({ changed: Object.keys(body) }),
    },
  );
  template.remove(
    { summary: 'Delete an extraction template no record or unfinished extraction uses', responses: { 409: { description: 'Records or running extractions use the template' } } },
    {
      before: async (unit, row) => {
        const usage = await templateUsage(unit.scope, row.id);
        if (usage.records > 0 || usage.pendingExtractions > 0) {
          throw new AppError('CONFLICT', `the template is used by ${usage.records} record(s) and ${usage.pendingExtractions} unfinished extraction(s); delete the records first`, {
            records: usage.records,
            pending_extractions: usage.pendingExtractions,
          });
        }
        // Finished jobs without a record go with the template.
        await unit.scope.table('extractions').where('template_id', row.id).delete();
      },
    },
  );

  return api;
}
