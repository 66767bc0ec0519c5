/**
 * Branding presets, without HTTP: reads take the tenant's scope, changes a unit of work
 * (db/unit-of-work.ts); both answer rows. api/routes/brandings.ts is the HTTP face.
 */
import { fileById } from '../db/queries/files';
import {
  brandingById,
  BrandingColumns,
  brandingsQuery,
  deleteBranding as deleteBrandingRow,
  insertBranding,
  schedulesUsingBranding,
  updateBranding as updateBrandingRow,
} from '../db/queries/brandings';
import type { BrandingRow } from '../db/queries/report-jobs';
import { isUuid, type TenantScope } from '../db/tenant-scope';
import type { Unit } from '../db/unit-of-work';
import { isLogoContentType, LOGO_CONTENT_TYPES, logoOfFile, type LogoSources } from '../infra/reports/logo';
import { conflict, validationError } from '../domain/errors';
import { findOr404 } from '../db/find-or-404';
import { paginate, type Page, type PageRequest } from '../db/pagination';

export type { BrandingColumns };

export function listBrandings(scope: TenantScope, page: PageRequest): Promise<Page<BrandingRow>> {
  return paginate(brandingsQuery(scope), page);
}

export function requireBranding(scope: TenantScope, id: string): Promise<BrandingRow> {
  return findOr404('branding', id, () => brandingById(scope, id));
}

/** A branding_id in a request that must name a branding of the tenant (422 otherwise). */
export async function requireBrandingReference(scope: TenantScope, id: string, field = 'body.branding_id'): Promise<void> {
  if (!isUuid(id) || !(await brandingById(scope, id))) {
    throw validationError('branding_id does not name a branding of this tenant', [{ field, message: 'unknown branding', type: 'any.unknown_reference' }]);
  }
}

/**
 * The logo file must be a PNG or JPEG of the tenant that the content sandbox accepts
 * (infra/reports/logo.ts decides it once and stores the PNG it re-encoded); otherwise a 422 that
 * says why. Deciding may take the sandbox a moment, within the tenant's share of it, and reads the
 * file from storage: called before the branding's unit of work opens, so no transaction holds a
 * pooled connection meanwhile.
 */
export async function requireLogo(scope: TenantScope, logos: LogoSources, fileId: string): Promise<void> {
  const file = isUuid(fileId) ? await fileById(scope, fileId) : undefined;
  if (!file) throw validationError('logo_file_id does not name a file of this tenant', [{ field: 'body.logo_file_id', message: 'unknown file', type: 'any.unknown_reference' }]);
  if (!isLogoContentType(file.content_type)) {
    throw validationError(`the logo must be ${LOGO_CONTENT_TYPES.join(' or ')}; the file is ${file.content_type}`, [
      { field: 'body.logo_file_id', message: `content type ${file.content_type} is not ${LOGO_CONTENT_TYPES.join(' or ')}`, type: 'any.content_type' },
    ]);
  }
  const logo = await logoOfFile(logos, scope.tenantId, file);
  if (logo.refused !== null)
    throw validationError(`the logo file is not a usable image: ${logo.refused}`, [{ field: 'body.logo_file_id', message: logo.refused, type: 'any.image' }]);
}

/** An empty footer is no footer. */
const columns = (body: BrandingColumns): BrandingColumns => ({ ...body, ...(body.footer_text === '' ? { footer_text: null } : {}) });

/** The branding; its logo, if any, already passed requireLogo. */
export async function createBranding(unit: Unit, body: BrandingColumns): Promise<BrandingRow> {
  const row = await insertBranding(unit.scope, columns(body));
  unit.audit({ action: 'branding.created', resourceType: 'branding', resourceId: row.id });
  return row;
}

/** The branding's fields sent; its logo, if any, already passed requireLogo. */
export async function updateBranding(unit: Unit, id: string, body: BrandingColumns): Promise<BrandingRow> {
  await requireBranding(unit.scope, id);
  const row = await updateBrandingRow(unit.scope, id, columns(body));
  unit.audit({ action: 'branding.updated', resourceType: 'branding', resourceId: row.id, details: { fields: Object.keys(body) } });
  return row;
}

/** Refused (409) while a scheduled report uses the branding. */
export async function deleteBranding(unit: Unit, id: string): Promise<void> {
  const row = await requireBranding(unit.scope, id);
  const users = await schedulesUsingBranding(unit.scope, row.id);
  if (users > 0) throw conflict(`branding is used by ${users} scheduled report(s)`);
  await deleteBrandingRow(unit.scope, row.id);
  unit.audit({ action: 'branding.deleted', resourceType: 'branding', resourceId: row.id });
}
