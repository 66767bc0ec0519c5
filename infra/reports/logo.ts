/**
 * A branding's logo: a PNG or JPEG of the tenant's files (db/queries/files.ts), read whole (logos
 * are small; one larger than LOGO_MAX_BYTES is left out). A missing file or another type gives
 * no logo rather than no report.
 */
import type { Db } from '../../db/knex';
import { fileById } from '../../db/queries/files';
import { tenantScope } from '../../db/tenant-scope';
import { ObjectStore, openFileStream } from '../object-store';
import { RenderBranding } from './branding';

export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg'] as const;
export type LogoContentType = (typeof LOGO_CONTENT_TYPES)[number];
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;

export const isLogoContentType = (value: string): value is LogoContentType => (LOGO_CONTENT_TYPES as readonly string[]).includes(value);

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

export async function loadLogo(sources: { db: Db; objectStore: ObjectStore }, tenantId: string, fileId: string): Promise<RenderBranding['logo']> {
  const file = await fileById(tenantScope(sources.db, tenantId), fileId);
  if (!file || !isLogoContentType(file.content_type) || Number(file.size_bytes) > LOGO_MAX_BYTES) return null;
  return { bytes: await readAll(await openFileStream(sources.objectStore, file)), contentType: file.content_type };
}
