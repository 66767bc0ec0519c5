/**
 * A real SMTP server on a free loopback port (smtp-server), for tests that verify mailbox
 * settings with a real handshake. Plain connection (no STARTTLS: no certificate in tests) with
 * AUTH allowed over it, one valid user/password pair.
 */
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpTestServer {
  host: string;
  port: number;
  username: string;
  password: string;
  /** AUTH attempts seen, successful or not. */
  authAttempts: number;
  close(): Promise<void>;
}

export async function startSmtpTestServer(username: string, password: string): Promise<SmtpTestServer> {
  const state = { authAttempts: 0 };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      state.authAttempts += 1;
      if (auth.username === username && auth.password === password) callback(null, { user: username });
      else callback(new Error('Invalid username or password'));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return {
    host: '127.0.0.1',
    port,
    username,
    password,
    get authAttempts() {
      return state.authAttempts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
