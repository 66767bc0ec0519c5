import { checkSmtpDestination, MAIL_PORTS } from '../../../infra/outbound/smtp-destination';
import { smtpTransport } from '../../../infra/smtp-verify';

// A public address literal: judged without a DNS lookup.
const PUBLIC = '93.184.216.34';

describe('SMTP destinations (issue 17)', () => {
  it('outside development, only mail ports are reachable: an account is not a port scanner', async () => {
    for (const port of [22, 80, 443, 5432, 6379]) {
      expect(await checkSmtpDestination(PUBLIC, port, false)).toEqual({ kind: 'refused', reason: `port ${port} is not a mail port (25, 465, 587, 2525)` });
    }
    for (const port of MAIL_PORTS) expect(await checkSmtpDestination(PUBLIC, port, false)).toEqual({ kind: 'allowed', address: PUBLIC });
  });

  it('the development setting (loopback test servers) takes any port', async () => {
    expect(await checkSmtpDestination('127.0.0.1', 2626, true)).toEqual({ kind: 'allowed', address: '127.0.0.1' });
  });

  it('requires TLS before authenticating unless the development setting turned it off', () => {
    const settings = { host: PUBLIC, port: 587, secure: false, username: 'u', password: 'p' };
    const options = (requireTls: boolean) => (smtpTransport({ ...settings, requireTls }, 1000) as unknown as { options: { requireTLS?: boolean } }).options;
    expect(options(true).requireTLS).toBe(true);
    expect(options(false).requireTLS).toBe(false);
    // Implicit TLS (465) is TLS from the first byte already.
    expect((smtpTransport({ ...settings, port: 465, secure: true, requireTls: true }, 1000) as unknown as { options: { secure: boolean } }).options.secure).toBe(true);
  });
});
