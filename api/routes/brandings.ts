import Joi from '../../domain/joi';
import { BrandingRow } from '../../db/queries/report-jobs';
import { BrandingColumns, createBranding, deleteBranding, listBrandings, requireBranding, updateBranding } from '../../services/brandings';
import { tenantScopeOf, userOf } from '../context';
import { actorOf, runMutation } from '../mutation';
import { mapPage, PageRequest } from '../../db/pagination';
import { pageQuery, pageOf } from '../pagination';
import { ApiRouter } from '../route';
import { colourField, idRef } from '../validation';
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
type BrandingBody = BrandingColumns;

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
      ctx.body = mapPage(await listBrandings(tenantScopeOf(ctx), query), toBranding);
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
      const created = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => createBranding(unit, body));
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
      ctx.body = toBranding(await requireBranding(tenantScopeOf(ctx), p.branding_id));
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
      const updated = await runMutation(ctx, tenantId, actorOf(ctx), (unit) => updateBranding(unit, p.branding_id, body));
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
      await runMutation(ctx, tenantId, actorOf(ctx), (unit) => deleteBranding(unit, p.branding_id));
      ctx.status = 204;
    },
  });

  return api;
}
