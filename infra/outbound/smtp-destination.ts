/**
 * Where the service may open an SMTP connection for a tenant's mailbox: the host passes the
 * webhook destination rules (private and loopback only with the development setting, never
 * link-local or metadata), and the caller connects to the checked address (no second lookup).
 * Used by the account handshake (api/routes/email-accounts.ts) and by sending (conversations).
 * Outside development only the mail ports are reachable (issue 17): an account must not turn the
 * API into a port scanner of other hosts, and the connection must use TLS (`requireTls`).
 */
import { checkDestination, systemResolver } from './destination-guard';

export type SmtpDestination = { kind: 'allowed'; address: string } | { kind: 'refused'; reason: string } | { kind: 'unresolved' };

/** SMTP (25), submission over TLS (465), submission (587), and the common alternative (2525). */
export const MAIL_PORTS: readonly number[] = [25, 465, 587, 2525];

export async function checkSmtpDestination(host: string, port: number, allowPrivate: boolean): Promise<SmtpDestination> {
  // Development (loopback test servers on any port) is the documented opt-out.
  if (!allowPrivate && !MAIL_PORTS.includes(port)) return { kind: 'refused', reason: `port ${port} is not a mail port (${MAIL_PORTS.join(', ')})` };
  const literal = host.includes(':') ? `[${host}]` : host;
  const checked = await checkDestination(`https://${literal}:${port}/`, { allowPrivate, resolver: systemResolver });
  if (checked.kind === 'refused') return { kind: 'refused', reason: checked.reason };
  if (checked.kind === 'unresolved') return { kind: 'unresolved' };
  return { kind: 'allowed', address: checked.addresses[0].address };
}
