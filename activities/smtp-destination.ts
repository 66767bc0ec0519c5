/**
 * Where the service may open an SMTP connection for a tenant's mailbox: the host passes the
 * webhook destination rules (private and loopback only with the development setting, never
 * link-local or metadata), and the caller connects to the checked address (no second lookup).
 * Used by the account handshake (api/routes/email-accounts.ts) and by sending (conversations).
 */
import { checkDestination, systemResolver } from './webhooks/destination-guard';

export type SmtpDestination =
  | { kind: 'allowed'; address: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'unresolved' };

export async function checkSmtpDestination(host: string, port: number, allowPrivate: boolean): Promise<SmtpDestination> {
  const literal = host.includes(':') ? `[${host}]` : host;
  const checked = await checkDestination(`https://${literal}:${port}/`, { allowPrivate, resolver: systemResolver });
  if (checked.kind === 'refused') return { kind: 'refused', reason: checked.reason };
  if (checked.kind === 'unresolved') return { kind: 'unresolved' };
  return { kind: 'allowed', address: checked.addresses[0].address };
}
