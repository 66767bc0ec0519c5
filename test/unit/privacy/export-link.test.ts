import { exportLinkKey, exportLinkSignatureValid, exportLinkUrl, signExportLink } from '../../../domain/privacy/export-link';

const claims = { tenantId: '6f1c2d3e-0000-4000-8000-000000000001', exportId: '6f1c2d3e-0000-4000-8000-000000000002', expiresEpochSeconds: 1_900_000_000 };
const key = exportLinkKey('a-server-secret-of-at-least-32-characters');

describe('export links', () => {
  it('are URLs of the service carrying the tenant, the expiry and a 256-bit signature', () => {
    const url = new URL(exportLinkUrl('https://ops.example.com/base/', key, claims));
    expect(`${url.origin}${url.pathname}`).toBe(`https://ops.example.com/base/api/v1/privacy/exports/${claims.exportId}/archive`);
    expect(url.searchParams.get('tenant')).toBe(claims.tenantId);
    expect(url.searchParams.get('expires')).toBe('1900000000');
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(exportLinkSignatureValid(key, claims, url.searchParams.get('signature')!)).toBe(true);
  });

  it('are bound to the tenant, the export, the expiry and the server secret', () => {
    const signature = signExportLink(key, claims);
    expect(exportLinkSignatureValid(key, { ...claims, tenantId: '6f1c2d3e-0000-4000-8000-000000000003' }, signature)).toBe(false);
    expect(exportLinkSignatureValid(key, { ...claims, exportId: '6f1c2d3e-0000-4000-8000-000000000003' }, signature)).toBe(false);
    expect(exportLinkSignatureValid(key, { ...claims, expiresEpochSeconds: claims.expiresEpochSeconds + 1 }, signature)).toBe(false);
    expect(exportLinkSignatureValid(exportLinkKey('another-server-secret-of-32-characters!'), claims, signature)).toBe(false);
    // Truncated, empty or not base64url: refused, never thrown.
    expect(exportLinkSignatureValid(key, claims, signature.slice(0, 42))).toBe(false);
    expect(exportLinkSignatureValid(key, claims, '')).toBe(false);
    expect(exportLinkSignatureValid(key, claims, '%%%')).toBe(false);
  });

  it('use a key of their own, not the server secret itself', () => {
    expect(key.length).toBe(32);
    expect(key.equals(Buffer.from('a-server-secret-of-at-least-32-characters').subarray(0, 32))).toBe(false);
  });
});
