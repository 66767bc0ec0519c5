/**
 * `/api/v1/extraction-templates` (issue 8): CRUD of extraction templates, named lists of typed
 * fields validated as a schema. Editing a template never changes existing records (each record
 * keeps the fields it was extracted with); a template that records or unfinished jobs use cannot be
 * deleted (409), finished jobs without a record go with it.
 */
import Joi from '../../domain/joi';
import { TEMPLATE_COLUMNS } from '../../db/queries/extractions';
import { assertTemplateNameFree, prepareTemplateDelete, requireTemplate, templateColumns, TemplateBody } from '../../services/extraction-templates';
import { ApiRouter } from '../route';
import { templateFields, templateSchema, toTemplate } from '../resources/extraction';
import { resourceRoutes } from '../resource-routes';

const templateBody = {
  name: Joi.string().trim().min(1).max(200),
  description: Joi.string().trim().max(2000).allow(null),
  fields: templateFields,
};

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
    {
      check: (unit, body) => assertTemplateNameFree(unit.scope, body.name!),
      columns: templateColumns,
      after: (_unit, _row, body) => ({ fields: body.fields!.map((f) => f.name) }),
    },
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
        if (body.name) await assertTemplateNameFree(unit.scope, body.name, before.id);
      },
      columns: templateColumns,
      details: (body) => ({ changed: Object.keys(body) }),
    },
  );
  template.remove(
    { summary: 'Delete an extraction template no record or unfinished extraction uses', responses: { 409: { description: 'Records or running extractions use the template' } } },
    { before: (unit, row) => prepareTemplateDelete(unit.scope, row) },
  );

  return api;
}
