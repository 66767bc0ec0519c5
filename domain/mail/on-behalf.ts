/**
 * What every mail the platform's own sender (SMTP_URL, MAIL_FROM) carries for a tenant says about
 * who sent it, so a receiver (or an abuse desk) can tell one tenant's mail from another's and from
 * the platform's: the tenant's name in the From display name ("Acme via Industrial Ops"), the
 * headers `X-Tenant-Id` (its id) and `X-Sent-On-Behalf-Of` (its name), and a closing line in
 * the text. The address stays the platform's: its domain is the one authenticated.
 */
import addressparser from 'nodemailer/lib/addressparser';

export interface MailingTenant {
  id: string;
  name: string;
}

export interface TenantMailMarks {
  from: { name: string; address: string };
  headers: Record<string, string>;
  /** Appended to the text body after a blank line. */
  footer: string;
}

/** Longest tenant name shown in a display name; the headers and the footer carry it whole. */
const MAX_DISPLAY_NAME = 64;

/** Control characters (a header line break among them) are no part of a name. */
const printable = (text: string) => text.replace(/\p{Cc}+/gu, ' ').trim();

export function tenantMailMarks(tenant: MailingTenant, systemFrom: string): TenantMailMarks {
  const [platform] = addressparser(systemFrom, { flatten: true });
  const address = platform?.address || systemFrom;
  const platformName = printable(platform?.name || '') || address;
  const tenantName = printable(tenant.name) || tenant.id;
  const shown = tenantName.length > MAX_DISPLAY_NAME ? `${tenantName.slice(0, MAX_DISPLAY_NAME - 1)}…` : tenantName;
  return {
    from: { name: `${shown} via ${platformName}`, address },
    headers: { 'X-Tenant-Id': tenant.id, 'X-Sent-On-Behalf-Of': tenantName },
    footer: `Sent by ${platformName} on behalf of ${tenantName} (tenant ${tenant.id}).`,
  };
}

/** A text body with the marks' closing line. */
export function withFooter(text: string, marks: TenantMailMarks): string {
  return `${text}\n\n--\n${marks.footer}`;
}
