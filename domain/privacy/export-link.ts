/**
 * The download link of a subject export: a URL of the service, signed with HMAC-SHA256 under a
 * key derived from a server secret, bound to the tenant, the export and the expiry. The link is
 * the credential of the download (it can be handed to a browser, no bearer token), so it is never
 * stored, never put in workflow history, audit details, logs or spans; the API computes it from the
 * export row whenever it answers, and the same row always gives the same link.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { withoutTrailingSlashes } from '../urls';

/** How long a link is valid from the export's creation (SPEC.md: 24 hours); the archive is deleted then. */
export const EXPORT_LINK_TTL_MS = 24 * 60 * 60 * 1000;

/** Where the link points, under the API's public base URL; `{export_id}` is the export's id. */
export const EXPORT_ARCHIVE_PATH = '/api/v1/privacy/exports/{export_id}/archive';

export interface ExportLinkClaims {
  tenantId: string;
  exportId: string;
  /** Whole seconds since the epoch, as the link carries it. */
  expiresEpochSeconds: number;
}

/** The signing key: HKDF-SHA256 of the server secret, for this use only (key separation from the secret's other uses). */
export function exportLinkKey(serverSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', serverSecret, 'industrial-ops', 'privacy-export-link/v1', 32));
}

function mac(key: Buffer, claims: ExportLinkClaims): Buffer {
  return createHmac('sha256', key).update(`v1\n${claims.tenantId}\n${claims.exportId}\n${claims.expiresEpochSeconds}`).digest();
}

/** The link's signature (base64url, 43 characters). */
export function signExportLink(key: Buffer, claims: ExportLinkClaims): string {
  return mac(key, claims).toString('base64url');
}

/** Whether `signature` signs these claims; compared in constant time. */
export function exportLinkSignatureValid(key: Buffer, claims: ExportLinkClaims, signature: string): boolean {
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, claims);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The full link: `<base>/api/v1/privacy/exports/<id>/archive?tenant=…&expires=…&signature=…`. */
export function exportLinkUrl(publicBaseUrl: string, key: Buffer, claims: ExportLinkClaims): string {
  // A base URL with a path (a proxy serving the API under /ops) keeps it.
  const base = withoutTrailingSlashes(publicBaseUrl);
  const query = new URLSearchParams({ tenant: claims.tenantId, expires: String(claims.expiresEpochSeconds), signature: signExportLink(key, claims) });
  return `${base}${EXPORT_ARCHIVE_PATH.replace('{export_id}', claims.exportId)}?${query.toString()}`;
}

/** The expiry a link carries for an export expiring at `expiresAt` (whole seconds, never later than the row's). */
export const linkExpiry = (expiresAt: Date): number => Math.floor(expiresAt.getTime() / 1000);
