/** Branding presets: what a report shows of the company. */
import type { Knex } from 'knex';
import type { TenantScope } from '../tenant-scope';
import type { BrandingRow } from './report-jobs';

export type BrandingColumns = Partial<Pick<BrandingRow, 'name' | 'company_name' | 'logo_file_id' | 'primary_color' | 'accent_color' | 'footer_text'>>;

/** Every branding of the tenant, oldest first (a list query: the caller pages it). */
export function brandingsQuery(scope: TenantScope): Knex.QueryBuilder {
  return scope
    .table('brandings')
    .select('*')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

export function brandingById(scope: TenantScope, id: string): Promise<BrandingRow | undefined> {
  return scope.table('brandings').where('id', id).first();
}

export async function insertBranding(scope: TenantScope, columns: BrandingColumns): Promise<BrandingRow> {
  const [row] = await scope.insert('brandings', columns);
  return row as BrandingRow;
}

export async function updateBranding(scope: TenantScope, id: string, columns: BrandingColumns): Promise<BrandingRow> {
  const [row] = await scope
    .table('brandings')
    .where('id', id)
    .update({ ...columns, updated_at: new Date() })
    .returning('*');
  return row as BrandingRow;
}

export async function deleteBranding(scope: TenantScope, id: string): Promise<void> {
  await scope.table('brandings').where('id', id).delete();
}

/** How many scheduled reports name the branding (a branding in use cannot be deleted). */
export async function schedulesUsingBranding(scope: TenantScope, id: string): Promise<number> {
  const users = await scope.table('scheduled_reports').where('branding_id', id).count({ n: '*' }).first();
  return Number(users?.n ?? 0);
}
