import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../../infra/config';

const base = () => ({
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_ACCESS_KEY: 'key',
  S3_SECRET_KEY: 'secret-key',
  JWT_SECRET: randomBytes(32).toString('base64url'),
  INTERNAL_JWT_SECRET: randomBytes(32).toString('base64url'),
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  METRICS_TOKEN: randomBytes(32).toString('base64url'),
  API_PUBLIC_URL: 'https://ops.example.com',
});

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('loadConfig', () => {
  it("reads the API's stop timings, 0 included, and refuses a negative or fractional one", () => {
    expect(loadConfig({ ...base(), APP_ENV: 'test' }).api.shutdown).toEqual({ delayMs: 5_000, graceMs: 20_000 });
    expect(loadConfig({ ...base(), APP_ENV: 'test', API_SHUTDOWN_DELAY_MS: '0', API_SHUTDOWN_GRACE_MS: '45000' }).api.shutdown).toEqual({ delayMs: 0, graceMs: 45_000 });
    expect(problemsOf({ ...base(), APP_ENV: 'test', API_SHUTDOWN_DELAY_MS: '-1', API_SHUTDOWN_GRACE_MS: '2.5' })).toEqual([
      'API_SHUTDOWN_DELAY_MS must be an integer from 0 to 1000000',
      'API_SHUTDOWN_GRACE_MS must be an integer from 0 to 1000000',
    ]);
  });

  it('refuses to start in production without real secrets', () => {
    const problems = problemsOf({ ...base(), APP_ENV: 'production', JWT_SECRET: undefined, INTERNAL_JWT_SECRET: 'changeme-changeme-changeme-changeme-1' });
    expect(problems).toEqual(expect.arrayContaining(['JWT_SECRET is required', 'INTERNAL_JWT_SECRET looks like a placeholder; production needs a real secret']));
    expect(problemsOf({ ...base(), APP_ENV: 'production', DATA_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toEqual([
      'DATA_ENCRYPTION_KEY must be at least 32 characters',
      'DATA_ENCRYPTION_KEY must be the base64 encoding of 32 bytes',
    ]);
    expect(problemsOf({ ...base(), APP_ENV: 'production' })).toEqual([]);
  });

  it('refuses a system mailer without TLS in production, and names the setting that allows clear text', () => {
    const production = (url: string) => problemsOf({ ...base(), APP_ENV: 'production', SMTP_URL: url });
    const required = 'production requires TLS (smtps://host:465, or smtp://host:587?requireTLS=true)';
    expect(production('smtp://mail.example.com:587')).toEqual([`SMTP_URL allows clear text: ${required}`]);
    expect(production('smtp://u:p@mail.example.com:25?requireTLS=false')).toEqual([`SMTP_URL allows clear text: ${required}`]);
    // nodemailer takes `secure` from the scheme only.
    expect(production('smtp://mail.example.com:465?secure=true')).toEqual([`SMTP_URL allows clear text: ${required}`]);
    expect(production('smtp://mail.example.com:587?requireTLS=true&ignoreTLS=true')).toEqual([`SMTP_URL sets ignoreTLS: ${required}`]);
    expect(production('smtps://mail.example.com:465?tls.rejectUnauthorized=false')).toEqual([`SMTP_URL turns certificate verification off: ${required}`]);
    expect(production('direct://')).toEqual([`SMTP_URL uses direct: ${required}`]);
    expect(production('smtps://u:p@mail.example.com:465')).toEqual([]);
    expect(production('smtp://u:p@mail.example.com:587?requireTLS=true')).toEqual([]);
    expect(loadConfig({ ...base(), APP_ENV: 'production', SMTP_URL: 'smtps://mail.example.com' }).smtp.url).toBe('smtps://mail.example.com');
    // Development and tests may use a local sink without TLS; without SMTP_URL nothing is sent at all.
    expect(problemsOf({ ...base(), APP_ENV: 'development', SMTP_URL: 'smtp://127.0.0.1:1025' })).toEqual([]);
    expect(problemsOf({ ...base(), APP_ENV: 'test', SMTP_URL: 'smtp://127.0.0.1:1025' })).toEqual([]);
    expect(problemsOf({ ...base(), APP_ENV: 'production' })).toEqual([]);
  });

  it('is production when APP_ENV is unset: placeholder secrets and private webhook destinations are refused', () => {
    expect(loadConfig(base()).appEnv).toBe('production');
    expect(loadConfig(base()).webhooks.allowPrivateDestinations).toBe(false);
    expect(problemsOf({ ...base(), JWT_SECRET: 'changeme-changeme-changeme-changeme-1' })).toEqual(['JWT_SECRET looks like a placeholder; production needs a real secret']);
    expect(problemsOf({ ...base(), WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true' })).toEqual(['WEBHOOK_ALLOW_PRIVATE_DESTINATIONS cannot be enabled in production']);
  });

  it("reads the outbound shares, deadlines and circuit settings, and keeps a webhook attempt's deadline within its lease", () => {
    const defaults = loadConfig({ ...base(), APP_ENV: 'test' });
    expect(defaults.outbound).toEqual({
      webhookConnectTimeoutMs: 3_000,
      webhookResponseTimeoutMs: 10_000,
      webhookAttemptsPerTenant: 64,
      webhookWaitingPerTenant: 64,
      breakerFailureThreshold: 5,
      breakerOpenMs: 30_000,
      webhookParkedPerTenant: 10_000,
      smtpSendsPerTenant: 4,
      toolCallsPerTenant: 8,
    });
    expect(defaults.llm.callsPerTenant).toBe(4);
    const set = loadConfig({ ...base(), APP_ENV: 'test', WEBHOOK_ATTEMPTS_PER_TENANT: '10', WEBHOOK_WAITING_PER_TENANT: '0', LLM_CALLS_PER_TENANT: '2' });
    expect([set.outbound.webhookAttemptsPerTenant, set.outbound.webhookWaitingPerTenant, set.llm.callsPerTenant]).toEqual([10, 0, 2]);
    expect(problemsOf({ ...base(), APP_ENV: 'test', WEBHOOK_RESPONSE_TIMEOUT_MS: '60000' })).toEqual(['WEBHOOK_RESPONSE_TIMEOUT_MS must be at most 20000']);
    expect(problemsOf({ ...base(), APP_ENV: 'test', WEBHOOK_ATTEMPTS_PER_TENANT: '0' })).toEqual(['WEBHOOK_ATTEMPTS_PER_TENANT must be an integer from 1 to 1000000']);
  });

  it('allows private webhook destinations by default in development only, and never in production', () => {
    expect(loadConfig({ ...base(), APP_ENV: 'development' }).webhooks.allowPrivateDestinations).toBe(true);
    expect(loadConfig({ ...base(), APP_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'false' }).webhooks.allowPrivateDestinations).toBe(false);
    expect(loadConfig({ ...base(), APP_ENV: 'test' }).webhooks.allowPrivateDestinations).toBe(false);
    expect(loadConfig({ ...base(), APP_ENV: 'production' }).webhooks.allowPrivateDestinations).toBe(false);
    expect(problemsOf({ ...base(), APP_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true' })).toEqual([
      'WEBHOOK_ALLOW_PRIVATE_DESTINATIONS cannot be enabled in production',
    ]);
  });

  it("needs the API's public URL in production (its links name it), and defaults to the listener's address elsewhere", () => {
    expect(problemsOf({ ...base(), APP_ENV: 'production', API_PUBLIC_URL: undefined })).toEqual([
      'API_PUBLIC_URL is required in production: the download links the API hands out name it (e.g. https://ops.example.com)',
    ]);
    expect(loadConfig({ ...base(), APP_ENV: 'production', API_PUBLIC_URL: 'https://ops.example.com/base/' }).api.publicUrl).toBe('https://ops.example.com/base');
    for (const wrong of ['ops.example.com', 'ftp://ops.example.com', 'https://ops.example.com/?x=1', 'https://u:p@ops.example.com']) {
      expect(problemsOf({ ...base(), APP_ENV: 'production', API_PUBLIC_URL: wrong })).toEqual([
        'API_PUBLIC_URL must be an absolute http(s) URL without credentials, query or fragment (e.g. https://ops.example.com)',
      ]);
    }
    expect(loadConfig({ ...base(), APP_ENV: 'test', API_PUBLIC_URL: undefined, API_HOST: '0.0.0.0', API_PORT: '3100' }).api.publicUrl).toBe('http://127.0.0.1:3100');
  });

  it('refuses to start in production with /metrics unguarded (no METRICS_TOKEN, or a short one)', () => {
    expect(problemsOf({ ...base(), APP_ENV: 'production', METRICS_TOKEN: undefined })).toEqual([
      'METRICS_TOKEN is required in production: /metrics of the API and the worker would be open to anyone who reaches them',
    ]);
    expect(problemsOf({ ...base(), METRICS_TOKEN: 'short' })).toEqual(['METRICS_TOKEN must be at least 32 characters']);
    expect(loadConfig({ ...base(), APP_ENV: 'development', METRICS_TOKEN: undefined }).metricsToken).toBeNull();
  });

  it("hashes passwords with OWASP's scrypt parameters; only the test stack may lower N", () => {
    expect(loadConfig(base()).passwordHashing).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(loadConfig({ ...base(), APP_ENV: 'test', TEST_SCRYPT_LOG2_N: '15' }).passwordHashing).toEqual({ N: 2 ** 15, r: 8, p: 1 });
    for (const appEnv of ['production', 'development']) {
      expect(problemsOf({ ...base(), APP_ENV: appEnv, TEST_SCRYPT_LOG2_N: '15' })).toEqual([
        'TEST_SCRYPT_LOG2_N is for the test stack only (APP_ENV=test): password hashes use OWASP scrypt parameters',
      ]);
    }
    expect(problemsOf({ ...base(), APP_ENV: 'test', TEST_SCRYPT_LOG2_N: '20' })).toEqual(['TEST_SCRYPT_LOG2_N must be an integer from 10 to 17']);
  });

  it('injects faults only in the test stack, and ends a stalled process after 10 s unless told otherwise', () => {
    expect(loadConfig(base())).toMatchObject({ testFaults: null, process: { stallLimitMs: 10_000 } });
    expect(loadConfig({ ...base(), APP_ENV: 'test', TEST_FAULTS: 'request-header' }).testFaults).toEqual({ requestHeader: true, activity: null });
    expect(loadConfig({ ...base(), APP_ENV: 'test', TEST_FAULTS: 'activity:sendEmail:stall' }).testFaults).toEqual({
      requestHeader: false,
      activity: { type: 'sendEmail', kind: 'stall' },
    });
    for (const appEnv of ['production', 'development']) {
      expect(problemsOf({ ...base(), APP_ENV: appEnv, TEST_FAULTS: 'request-header' })).toEqual(['TEST_FAULTS is for the test stack only (APP_ENV=test)']);
    }
    expect(problemsOf({ ...base(), APP_ENV: 'test', TEST_FAULTS: 'activity:sendEmail:explode' })).toEqual([
      'TEST_FAULTS must be request-header or activity:<activity type>:<uncaught_exception|unhandled_rejection|stall>',
    ]);
    expect(loadConfig({ ...base(), EVENT_LOOP_STALL_LIMIT_MS: '30000' }).process.stallLimitMs).toBe(30_000);
    expect(problemsOf({ ...base(), EVENT_LOOP_STALL_LIMIT_MS: '10' })).toEqual(['EVENT_LOOP_STALL_LIMIT_MS must be an integer from 1000 to 1000000']);
  });
});
