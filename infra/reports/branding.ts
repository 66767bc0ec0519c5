/** The branding a renderer draws with: colours, names and the logo bytes (PNG or JPEG). */
export interface RenderBranding {
  companyName: string;
  primaryColor: string;
  accentColor: string;
  footerText: string | null;
  logo: { bytes: Buffer; contentType: 'image/png' | 'image/jpeg' } | null;
}

/** Without a branding: neutral colours, no logo. */
export const DEFAULT_BRANDING: RenderBranding = {
  companyName: 'Industrial Ops',
  primaryColor: '#1F4E79',
  accentColor: '#F28C28',
  footerText: null,
  logo: null,
};
