/**
 * Temporal's shared environment configuration (@temporalio/envconfig): the standard variables, a
 * temporal.toml profile under them, the project's earlier TLS names as aliases that only fill gaps.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientConfigToToml } from '@temporalio/envconfig';
import { temporalProfile } from '../../../infra/temporal-profile';
import { temporalConnectionOptions } from '../../../infra/temporal';

let dir: string;
const HOME = { HOME: '/nonexistent-home' }; // no user profile of the machine's own

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-profile-'));
  for (const name of ['ca.pem', 'client.pem', 'client.key']) fs.writeFileSync(path.join(dir, name), `${name}\n`);
  // Written as the CLI writes profiles (the API test, temporal-tls, reads a hand-written one).
  const file = (name: string) => ({ path: path.join(dir, name) });
  const profiles = {
    default: { address: 'default.example:7233' },
    cloud: {
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      apiKey: 'profile-key',
      tls: { serverCACert: file('ca.pem'), clientCert: file('client.pem'), clientKey: file('client.key') },
    },
  };
  fs.writeFileSync(path.join(dir, 'temporal.toml'), clientConfigToToml({ profiles }));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function load(env: Record<string, string>) {
  const problems: string[] = [];
  return { ...temporalProfile({ ...HOME, ...env }, problems), problems };
}

it('without configuration: the dev server on loopback, plain gRPC', () => {
  const loaded = load({});
  expect(loaded).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', problems: [] });
  expect(temporalConnectionOptions(loaded)).toEqual({ address: '127.0.0.1:7233' });
});

it('reads the profile TEMPORAL_PROFILE names from TEMPORAL_CONFIG_FILE; the variables override it field by field', () => {
  const cloud = load({ TEMPORAL_CONFIG_FILE: path.join(dir, 'temporal.toml'), TEMPORAL_PROFILE: 'cloud' });
  expect(cloud.problems).toEqual([]);
  expect(cloud).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', namespace: 'ns.acct' });
  const options = temporalConnectionOptions(cloud);
  expect(options).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'profile-key' });
  expect(options.tls).toMatchObject({ serverRootCACertificate: Buffer.from('ca.pem\n'), clientCertPair: { crt: Buffer.from('client.pem\n'), key: Buffer.from('client.key\n') } });

  const overridden = load({ TEMPORAL_CONFIG_FILE: path.join(dir, 'temporal.toml'), TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'other', TEMPORAL_API_KEY: 'env-key' });
  expect(overridden.namespace).toBe('other');
  expect(temporalConnectionOptions(overridden).apiKey).toBe('env-key');
  // Without TEMPORAL_PROFILE: the "default" profile.
  expect(load({ TEMPORAL_CONFIG_FILE: path.join(dir, 'temporal.toml') }).address).toBe('default.example:7233');
});

it('the earlier TEMPORAL_TLS_CA/CERT/KEY fill in only where the standard names are unset', () => {
  const aliases = load({ TEMPORAL_TLS_CA: path.join(dir, 'ca.pem'), TEMPORAL_TLS_CERT: path.join(dir, 'client.pem'), TEMPORAL_TLS_KEY: path.join(dir, 'client.key') });
  expect(aliases.profile.tls).toEqual({
    serverCACert: { path: path.join(dir, 'ca.pem') },
    clientCert: { path: path.join(dir, 'client.pem') },
    clientKey: { path: path.join(dir, 'client.key') },
  });
  const both = load({ TEMPORAL_TLS_CA: '/old/ca.pem', TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'ca.pem') });
  expect(both.profile.tls?.serverCACert).toEqual({ path: path.join(dir, 'ca.pem') });
});

it('an API key turns TLS on (system roots); TEMPORAL_TLS=false keeps it off; empty values count as unset', () => {
  expect(temporalConnectionOptions(load({ TEMPORAL_API_KEY: 'k' })).tls).toBe(true);
  expect(temporalConnectionOptions(load({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' })).tls).toBe(false);
  expect(load({ TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_TLS_CLIENT_KEY_PATH: '' }).profile.tls).toBeUndefined();
});

it('refuses a certificate without its key, a TEMPORAL_TLS that is not a boolean, a named file or profile that does not exist', () => {
  expect(load({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/x.pem' }).problems).toEqual([
    expect.stringMatching(/TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH .* go together/),
  ]);
  expect(load({ TEMPORAL_TLS_CERT: '/x.pem' }).problems).toHaveLength(1);
  expect(load({ TEMPORAL_TLS: 'yes' }).problems).toEqual(['TEMPORAL_TLS must be true or false']);
  expect(load({ TEMPORAL_CONFIG_FILE: path.join(dir, 'missing.toml') }).problems).toEqual([expect.stringMatching(/missing.toml does not exist/)]);
  expect(load({ TEMPORAL_CONFIG_FILE: path.join(dir, 'temporal.toml'), TEMPORAL_PROFILE: 'nope' }).problems).toEqual([expect.stringMatching(/Profile 'nope' not found/)]);
});
