import Joi from '../../domain/joi';
import { fileById } from '../../db/queries/files';
import { BrandingRow } from '../../db/queries/report-jobs';
import { isUuid, tenantScope, TenantScope } from '../../db/tenant-scope';
import { isLogoContentType, LOGO_CONTENT_TYPES } from '../../infra/reports/logo';
import { userOf } from '../context';
import { conflict, validationError } from '../errors';
import { actorOf, runMutation } from '../mutation';
import { pageQuery, paginate, PageRequest, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { colourField, idRef } from '../validation';
import { findOr404 } from '../find-or-404';
import { isoTime } from '../../domain/time';

/** Branding presets: what a report shows of the company (logo, colours, name, footer). */

const TAGS = ['reports'];
const color = colourField;
const fields = {
  name: Joi.string().trim().min(1).max(100),
  company_name: Joi.string().trim().min(1).max(200),
  logo_file_id: idRef.allow(null).description('A PNG or JPEG uploaded through /api/v1/files'),
  primary_color: color.description('Title band, table headers and bars'),
  accent_color: color.description('Key figure marks and the footer line'),
  footer_text: Joi.string().trim().max(300).allow(null, ''),
};
const createBody = Joi.object({ ...fields, name: fields.name.required(), company_name: fields.company_name.required() });
const updateBody = Joi.object(fields).min(1);
type BrandingBody = Partial<Pick<BrandingRow, 'name' | 'company_name' | 'logo_file_id' | 'primary_color' | 'accent_color' | 'footer_text'>>;

export const brandingSchema = Joi.object({
  id: Joi.string(),
  name: Joi.string(),
  company_name: Joi.string(),
  logo_file_id: Joi.string().allow(null),
  primary_color: Joi.string(),
  accent_color: Joi.string(),
  footer_text: Joi.string().allow(null),
  created_at: Joi.string().isoDate(),
  updated_at: Joi.string().isoDate(),
});
const params = Joi.object({ branding_id: idRef.required() });

export function toBranding(row: BrandingRow) {
  return {
    id: row.id,
    name: row.name,
    company_name: row.company_name,
    logo_file_id: row.logo_file_id,
    primary_color: row.primary_color.toUpperCase(),
    accent_color: row.accent_color.toUpperCase(),
    footer_text: row.footer_text,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export function requireBranding(scope: TenantScope, id: string): Promise<BrandingRow> {
  return findOr404('branding', id, () => scope.table('brandings').where('id', id).first());
}

/** A branding_id in a request body that must name a branding of the tenant (422 otherwise). */
export async function requireBrandingReference(scope: TenantScope, id: string, field = 'body.branding_id'): Promise<void> {
  if (!isUuid(id) || !(await scope.table('brandings').where('id', id).first('id'))) {
    throw validationError('branding_id does not name a branding of this tenant', [{ field, message: 'unknown branding', type: 'any.unknown_reference' }]);
  }
}

async function requireLogo(scope: TenantScope, fileId: string): Promise<void> {
  const file = isUuid(fileId) ? await fileById(scope, fileId) : undefined;
  if (!file) throw validationError('logo_file_id does not name a file of this tenant', [{ field: 'body.logo_file_id', message: 'unknown file', type: 'any.unknown_reference' }]);
  if (!isLogoContentType(file.content_type)) {
    throw validationError(`the logo must be ${LOGO_CONTENT_TYPES.join(' or ')}; the file is ${file.content_type}`, [
      { field: 'body.logo_file_id', message: `content type ${file.content_type} is not ${LOGO_CONTENT_TYPES.join(' or ')}`, type: 'any.content_type' },
    ]);
  }
}

const columns = (body: BrandingBody) => ({ ...body, ...(body.footer_text === '' ? { footer_text: null } : {}) });

export function brandingRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/brandings');

  api.route<unknown, PageRequest>({
    method: 'get',
    path: '/',
    summary: 'List branding presets',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    query: Joi.object(pageQuery),
    responses: { 200: { description: 'A page of brandings', schema: pageOf(brandingSchema) } },
    handler: async (ctx, { query }) => {
      const q = tenantScope(ctx.deps.db, userOf(ctx).tenantId)
        .table('brandings')
        .select('*')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      ctx.body = await paginate(q, query, toBranding);
    },
  });

  api.route<unknown, unknown, BrandingBody>({
    method: 'post',
    path: '/',
    summary: 'Create a branding preset',
    description: 'The logo is a file of the tenant (`/api/v1/files`) of type image/png or image/jpeg; any other file is a 422.',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_reports',
    body: createBody,
    responses: { 201: { description: 'Created branding', schema: brandingSchema }, 422: { description: 'Invalid colour, unknown file or a logo that is not PNG/JPEG' } },
    handler: async (ctx, { body }) => {
      const { tenantId } = userOf(ctx);
      const created = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        if (body.logo_file_id) await requireLogo(unit.scope, body.logo_file_id);
        const [row] = await unit.scope.insert('brandings', columns(body));
        unit.audit({ action: 'branding.created', resourceType: 'branding', resourceId: row.id });
        return row as BrandingRow;
      });
      ctx.status = 201;
      ctx.body = toBranding(created);
    },
  });

  api.route<{ branding_id: string }>({
    method: 'get',
    path: '/:branding_id',
    summary: 'Get a branding preset',
    tags: TAGS,
    auth: 'user',
    permission: 'view_reports',
    params,
    responses: { 200: { description: 'Branding', schema: brandingSchema }, 404: { description: 'Not found' } },
    handler: async (ctx, { params: p }) => {
      ctx.body = toBranding(await requireBranding(tenantScope(ctx.deps.db, userOf(ctx).tenantId), p.branding_id));
    },
  });

  api.route<{ branding_id: string }, unknown, BrandingBody>({
    method: 'put',
    path: '/:branding_id',
    summary: 'Update the fields sent; omitted fields keep their values',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_reports',
    params,
    body: updateBody,
    responses: { 200: { description: 'Updated branding', schema: brandingSchema }, 404: { description: 'Not found' }, 422: { description: 'Invalid field' } },
    handler: async (ctx, { params: p, body }) => {
      const { tenantId } = userOf(ctx);
      const updated = await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        await requireBranding(unit.scope, p.branding_id);
        if (body.logo_file_id) await requireLogo(unit.scope, body.logo_file_id);
        const [row] = await unit.scope
          .table('brandings')
          .where('id', p.branding_id)
          .update({ ...columns(body), updated_at: new Date() })
          .returning('*');
        unit.audit({ action: 'branding.updated', resourceType: 'branding', resourceId: row.id, details: { fields: Object.keys(body) } });
        return row as BrandingRow;
      });
      ctx.body = toBranding(updated);
    },
  });

  api.route<{ branding_id: string }>({
    method: 'delete',
    path: '/:branding_id',
    summary: 'Delete a branding preset; refused while a scheduled report uses it',
    description: 'Reports already generated keep their files; their `branding_id` becomes null.',
    tags: TAGS,
    auth: 'user',
    permission: 'manage_reports',
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' }, 409: { description: 'A scheduled report uses the branding' } },
    handler: async (ctx, { params: p }) => {
      const { tenantId } = userOf(ctx);
      await runMutation(ctx, tenantId, actorOf(ctx), async (unit) => {
        const row = await requireBranding(unit.scope, p.branding_id);
        const users = await unit.scope.table('scheduled_reports').where('branding_id', row.id).count({ n: '*' }).first();
        if (Number(users?.n ?? 0) > 0) throw conflict(`branding is used by ${users?.n} scheduled report(s)`);
        await unit.scope.table('brandings').where('id', row.id).delete();
        unit.audit({ action: 'branding.deleted', resourceType: 'branding', resourceId: row.id });
      });
      ctx.status = 204;
    },
  });

  return api;
}
