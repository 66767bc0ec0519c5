import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import secretsLib = require('../../../scripts/lib/dev-secrets.cjs');

describe('loadDevSecrets', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-secrets-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates every secret once, in a 0600 file, and returns the same values on the next run', () => {
    const file = path.join(dir, 'nested', 'secrets.env');
    const first = secretsLib.loadDevSecrets(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(secretsLib.loadDevSecrets(file)).toEqual(first);
    expect(Object.keys(first).sort()).toEqual([
      'DATA_ENCRYPTION_KEY',
      'DEMO_ADMIN_PASSWORD',
      'INTERNAL_JWT_SECRET',
      'JWT_SECRET',
      'POSTGRES_APP_PASSWORD',
      'POSTGRES_PASSWORD',
      'S3_ACCESS_KEY',
      'S3_SECRET_KEY',
    ]);
  });

  it('produces what infra/config.ts accepts: 32+ character JWT secrets that differ, a 32-byte base64 key', () => {
    const secrets = secretsLib.randomSecrets();
    expect(secrets.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(secrets.INTERNAL_JWT_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(secrets.JWT_SECRET).not.toBe(secrets.INTERNAL_JWT_SECRET);
    expect(Buffer.from(secrets.DATA_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
    expect(secrets.S3_SECRET_KEY.length).toBeGreaterThanOrEqual(8); // MinIO's minimum
  });

  it('adds a missing key without touching the ones already kept', () => {
    const file = path.join(dir, 'secrets.env');
    fs.writeFileSync(file, '# kept\nJWT_SECRET=kept-jwt-secret-of-more-than-32-characters\n');
    const secrets = secretsLib.loadDevSecrets(file);
    expect(secrets.JWT_SECRET).toBe('kept-jwt-secret-of-more-than-32-characters');
    expect(secretsLib.parseEnvFile(fs.readFileSync(file, 'utf8'))).toEqual(secrets);
  });
});
