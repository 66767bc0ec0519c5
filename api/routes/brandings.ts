import Joi from '../../domain/joi';
import { BrandingRow } from '../../db/queries/report-jobs';
import { BrandingColumns, createBranding, deleteBranding, listBrandings, requireBranding, requireLogo, updateBranding } from '../../services/brandings';
import { tenantScopeOf } from '../context';
import { inUserUnit, resourceRoutes } from '../resource-routes';
import { ApiRouter } from '../route';
import { colourField, idRef } from '../validation';
import { recordTimesOf, recordTimesSchema } from '../record-times';

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
  ...recordTimesSchema,
});

export function toBranding(row: BrandingRow) {
  return {
    id: row.id,
    name: row.name,
    company_name: row.company_name,
    logo_file_id: row.logo_file_id,
    primary_color: row.primary_color.toUpperCase(),
    accent_color: row.accent_color.toUpperCase(),
    footer_text: row.footer_text,
    ...recordTimesOf(row),
  };
}

export function brandingRoutes(): ApiRouter {
  const api = new ApiRouter('/api/v1/brandings');

  const branding = resourceRoutes(api, {
    path: '/:branding_id',
    tags: TAGS,
    view: 'view_reports',
    manage: 'manage_reports',
    schema: brandingSchema,
    find: requireBranding,
    present: toBranding,
  });
  branding.list({ summary: 'List branding presets', found: 'A page of brandings', load: listBrandings });
  branding.create<BrandingBody>(
    {
      summary: 'Create a branding preset',
      description:
        'The logo is a file of the tenant (`/api/v1/files`) of type image/png or image/jpeg that decodes within 25 megapixels; any other file, ' +
        'or an image that cannot be decoded, is a 422 saying why. Reports embed a PNG the service re-encodes from it (at most 256 px a side, on white).',
      body: createBody,
      created: 'Created branding',
      responses: { 422: { description: 'Invalid colour, unknown file or a logo that is not a decodable PNG/JPEG' } },
    },
    async (ctx, body) => {
      if (body.logo_file_id) await requireLogo(tenantScopeOf(ctx), ctx.deps, body.logo_file_id);
      return inUserUnit(ctx, (unit) => createBranding(unit, body));
    },
  );
  branding.get({ summary: 'Get a branding preset', found: 'Branding' });
  branding.update<BrandingBody>(
    {
      summary: 'Update the fields sent; omitted fields keep their values',
      body: updateBody,
      updated: 'Updated branding',
      responses: { 422: { description: 'Invalid field, or a logo that is not a decodable PNG/JPEG' } },
    },
    async (ctx, id, body) => {
      // An unknown branding is a 404 before its logo is judged, as inside the unit.
      if (body.logo_file_id) {
        await requireBranding(tenantScopeOf(ctx), id);
        await requireLogo(tenantScopeOf(ctx), ctx.deps, body.logo_file_id);
      }
      return inUserUnit(ctx, (unit) => updateBranding(unit, id, body));
    },
  );
  branding.remove(
    {
      summary: 'Delete a branding preset; refused while a scheduled report uses it',
      description: 'Reports already generated keep their files; their `branding_id` becomes null.',
      responses: { 409: { description: 'A scheduled report uses the branding' } },
    },
    (ctx, id) => inUserUnit(ctx, (unit) => deleteBranding(unit, id)),
  );

  return api;
}
