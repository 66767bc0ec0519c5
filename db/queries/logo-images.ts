/** The logo each file makes (db/migrations/*_logo_images.ts): decided once, read by every render. */
import type { TenantScope } from '../tenant-scope';

export type LogoOutcome = { png: Buffer; width: number; height: number; refused: null } | { png: null; width: null; height: null; refused: string };

export async function logoImageOf(scope: TenantScope, fileId: string): Promise<LogoOutcome | undefined> {
  return scope.table('logo_images').where('file_id', fileId).first('png', 'width', 'height', 'refused');
}

/** Records the outcome; a concurrent decision about the same file keeps the first (the same bytes decide the same). */
export async function storeLogoImage(scope: TenantScope, fileId: string, outcome: LogoOutcome): Promise<void> {
  await scope
    .db('logo_images')
    .insert({ tenant_id: scope.tenantId, file_id: fileId, ...outcome })
    .onConflict('file_id')
    .ignore();
}
