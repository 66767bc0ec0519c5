/**
 * A branding's logo. An uploaded PNG or JPEG is decided once per file, in the content sandbox
 * (infra/sandbox: libvips refuses pixel bombs before decoding and damaged images, and re-encodes
 * what it accepts as a PNG of at most LOGO_MAX_SIDE pixels a side); the outcome is stored
 * (db/queries/logo-images.ts) and renderers embed only the PNG the service wrote. Setting a logo
 * decides it (services/brandings.ts: a refused file is a 422); a logo set before this existed is
 * decided at its first render. A missing file, another type or a refused image gives no logo
 * rather than no report.
 */
import type { Db } from '../../db/knex';
import { fileById, type FileRow } from '../../db/queries/files';
import { logoImageOf, LogoOutcome, storeLogoImage } from '../../db/queries/logo-images';
import { tenantScope } from '../../db/tenant-scope';
import { ObjectStore, readFileBounded } from '../object-store';
import { LOGO_MAX_PIXELS, LOGO_MAX_SIDE, TIME_LIMITS } from '../sandbox/limits';
import type { SandboxPool } from '../sandbox/pool';
import { ContentError } from '../sandbox/protocol';
import { RenderBranding } from './branding';

export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg'] as const;
export type LogoContentType = (typeof LOGO_CONTENT_TYPES)[number];
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;

export const isLogoContentType = (value: string): value is LogoContentType => (LOGO_CONTENT_TYPES as readonly string[]).includes(value);

export interface LogoSources {
  db: Db;
  objectStore: ObjectStore;
  sandbox: SandboxPool;
}

const logoTooLarge = () => new ContentError('invalid', `the logo is larger than ${LOGO_MAX_BYTES / 1024 / 1024} MiB`);

const refused = (reason: string): LogoOutcome => ({ png: null, width: null, height: null, refused: reason });

/**
 * The logo `file` makes (a PNG or JPEG of the tenant), decided in the sandbox the first time and
 * stored. Content the sandbox refuses is a stored refusal; a busy sandbox or tenant share throws
 * (nothing is stored: the next try decides).
 */
export async function logoOfFile(sources: LogoSources, tenantId: string, file: Pick<FileRow, 'id' | 'object_key' | 'size_bytes'>): Promise<LogoOutcome> {
  const scope = tenantScope(sources.db, tenantId);
  const known = await logoImageOf(scope, file.id);
  if (known) return known;
  let outcome: LogoOutcome;
  try {
    if (Number(file.size_bytes) > LOGO_MAX_BYTES) throw logoTooLarge();
    const data = await readFileBounded(sources.objectStore, file, LOGO_MAX_BYTES, logoTooLarge);
    const image = await sources.sandbox.run(
      tenantId,
      'logo-image',
      { data, maxPixels: LOGO_MAX_PIXELS, maxSide: LOGO_MAX_SIDE },
      { subject: 'the logo', timeoutMs: TIME_LIMITS.logo },
    );
    outcome = { png: Buffer.from(image.png.buffer, image.png.byteOffset, image.png.byteLength), width: image.width, height: image.height, refused: null };
  } catch (err) {
    if (!(err instanceof ContentError)) throw err;
    outcome = refused(err.message);
  }
  await storeLogoImage(scope, file.id, outcome);
  return outcome;
}

/** The logo to embed: the service's PNG of the file, or none. */
export async function loadLogo(sources: LogoSources, tenantId: string, fileId: string): Promise<RenderBranding['logo']> {
  const file = await fileById(tenantScope(sources.db, tenantId), fileId);
  if (!file || !isLogoContentType(file.content_type)) return null;
  const logo = await logoOfFile(sources, tenantId, file);
  return logo.png ? { bytes: logo.png, contentType: 'image/png' } : null;
}
