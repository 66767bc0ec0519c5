/**
 * `/api/v1/extraction-templates` (issue 8): CRUD of extraction templates, named lists of typed
 * fields validated as a schema. Editing a template never changes existing records (each record
 * keeps the fields it was extracted with); a template that records or unfinished jobs use cannot be
 * deleted (409), finished jobs without a record go with it.
 */
import Joi from '../../domain/joi';
import { findTemplate, TEMPLATE_COLUMNS, TemplateRow, templateUsage } from '../../db/queries/extractions';
import { tenantScope, TenantScope } from '../../db/tenant-scope';
import type { TemplateField } from '../../domain/extraction/types';
import { userOf } from '../context';
import { AppError, conflict } from '../errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, paginate, PageRequest, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { idParams, templateFields, templateSchema, toTemplate } from '../resources/extraction';
import { findOr404 } from '../find-or-404';
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
  const listSchema = pageOf(templateSchema);

  api.route<unknown, PageRequest>({
    method: 'get',
    path: '/',
    summary: 'List extraction templates',
    tags: ['extractions'],
    auth: 'user',
    permission: 'view_extractions',
    query: Joi.object({ ...pageQuery }),
    responses: { 200: { description: 'A page of templates', schema: listSchema } },
    handler: async (ctx, { query }) => {
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('extraction_templates')
        .select([...TEMPLATE_COLUMNS])
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      ctx.body = await paginate(q, query, toTemplate);
    },
  });

  api.route<unknown, unknown, TemplateBody>({
    method: 'post',
    path: '/',
    summary: 'Create an extraction template',
    description:
      'Fields: `name` (snake_case, unique), `type` (string, number, date, enum, boolean, array), `required`, `instructions` ' +
      '(double-quoted phrases in them are also labels the built-in engine looks for), `values` (enum only, required), ' +
      '`items` (array only: string, number or date; default string).',
    tags: ['extractions'],
    auth: 'user',
    permission: 'manage_extractions',
    body: Joi.object({ ...templateBody, name: templateBody.name.required(), fields: templateBody.fields.required() }),
    responses: { 201: { description: 'Created template', schema: templateSchema }, 409: { description: 'Name taken' }, 422: { description: 'Invalid fields' } },
    handler: async (ctx, { body }) => {
      const { tenantId } = userOf(ctx);
      const row = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        await assertNameFree(unit.scope, body.name!);
        const [created] = await unit.scope.insert('extraction_templates', columns(body), [...TEMPLATE_COLUMNS]);
        unit.audit({ action: 'extraction_template.created', resourceType: 'extraction_template', resourceId: created.id, details: { fields: body.fields!.map((f) => f.name) } });
        return created as TemplateRow;
      });
      ctx.status = 201;
      ctx.body = toTemplate(row);
    },
  });

  const template = resourceRoutes(api, {
    path: '/:template_id',
    params: idParams('template_id'),
    tags: ['extractions'],
    view: 'view_extractions',
    manage: 'manage_extractions',
    schema: templateSchema,
    find: requireTemplate,
    present: toTemplate,
    audit: 'extraction_template',
    resourceType: 'extraction_template',
    table: 'extraction_templates',
    columns: TEMPLATE_COLUMNS,
  });
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
