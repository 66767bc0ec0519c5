/**
 * The one place that reads the process environment. Everything else receives a typed Config.
 * Production refuses to start with missing or weak secrets: no secret is compiled in.
 */
import type { ClientConfigProfile } from '@temporalio/envconfig';
import { OWASP_SCRYPT, type ScryptParams } from '../domain/auth/passwords';
import { temporalProfile } from './temporal-profile';
import { DEFAULT_PLAN_MODELS, isPlanName, PLAN_NAMES, type PlanModels, type PlanName } from '../domain/tenancy/plans';
import { withoutTrailingSlashes } from '../domain/urls';

export type AppEnv = 'development' | 'test' | 'production';

export interface Config {
  appEnv: AppEnv;
  /** `tls`: serve HTTPS with TLS 1.3 as the minimum (API_TLS_CERT_FILE + API_TLS_KEY_FILE); null: plain HTTP behind a TLS proxy. */
  api: {
    host: string;
    port: number;
    tls: { certFile: string; keyFile: string } | null;
    /**
     * Reverse proxies in front of the API (API_TRUSTED_PROXY_HOPS, default 0): with n > 0 the client
     * address is the n-th entry from the right of X-Forwarded-For (the one our own proxy wrote),
     * never a left-hand entry the client could forge; with 0 the header is ignored.
     */
    trustedProxyHops: number;
    /**
     * The stop on SIGTERM (api/graceful-shutdown.ts): /readyz answers 503 and requests are still
     * served for delayMs (API_SHUTDOWN_DELAY_MS, 5000), then the requests in flight get up to graceMs
     * (API_SHUTDOWN_GRACE_MS, 20000) to finish. An orchestrator's kill deadline must exceed the sum.
     */
    shutdown: { delayMs: number; graceMs: number };
    /**
     * The base URL people and clients reach the API at (API_PUBLIC_URL): links the API hands out
     * (a subject export's download) name it. Required in production; elsewhere the listener's own
     * address (`http://127.0.0.1:<API_PORT>` when it listens on every interface).
     */
    publicUrl: string;
  };
  /** Limits of the anonymous auth routes (api/login-limits.ts). */
  auth: AuthLimitsConfig;
  /**
   * scrypt parameters of new password hashes: OWASP's N=2^17, r=8, p=1. Only the test stack may
   * lower N (TEST_SCRYPT_LOG2_N, with APP_ENV=test): its suite creates hundreds of users.
   */
  passwordHashing: ScryptParams;

  /** The processes that parse untrusted files (infra/sandbox/pool.ts). */
  sandbox: SandboxConfig;
  /** Limits of the anonymous provider callbacks (api/inbound-limits.ts). */
  inbound: InboundLimitsConfig;
  databaseUrl: string;
  /** Connections per process (API or worker); the worker sizes its database-bound activity slots from it. */
  databasePoolMax: number;
  /** callDeadlineMs: how long the API waits for a workflow's answer (signal, query, Update) before a 503. */
  temporal: TemporalConfig;
  s3: {
    endpoint: string;
    publicEndpoint: string;
    /**
     * Static keys (S3_ACCESS_KEY + S3_SECRET_KEY), or 'environment' when neither is set: the
     * role of the pod or instance (AWS_WEB_IDENTITY_TOKEN_FILE, container or instance metadata).
     */
    credentials: { accessKey: string; secretKey: string } | 'environment';
    bucket: string;
    region: string;
    /** Path-style URLs (S3_PATH_STYLE, default true: MinIO and most S3-compatible stores); false: virtual-hosted buckets. */
    pathStyle: boolean;
  };
  secrets: { jwt: string; internalJwt: string; dataEncryptionKey: Buffer };
  /** The system mailer (SMTP_URL, MAIL_FROM): null URL: mail is recorded, not sent. TLS required in production (smtpTlsProblem). */
  smtp: { url: string | null; from: string };
  logLevel: string;
  webhooks: { allowPrivateDestinations: boolean };
  /** Calls to tenants' destinations: timeouts, each tenant's share of the shared pools, the webhook circuit breaker. */
  outbound: OutboundConfig;
  /** OpenAI-compatible language model (DESIGN.md, Language models); null base URL: built-in engine only. */
  llm: LlmConfig;
  /** WhatsApp Cloud API base URL for outbound messages (WHATSAPP_API_BASE_URL). */
  whatsapp: { apiBaseUrl: string };
  /** Deprecation headers per route prefix; see api/middleware/deprecation.ts. */
  deprecations: DeprecationRule[];
  /** Bearer token that GET /metrics of the API and the worker's /metrics require (METRICS_TOKEN); null: open (refused in production). */
  metricsToken: string | null;
  /**
   * The worker's probe and metrics server (WORKER_HTTP_HOST, default 127.0.0.1; WORKER_HTTP_PORT,
   * default 3001; 0 picks a free port, printed in the "worker ready" line): /livez, /readyz, /metrics.
   */
  workerHttp: { host: string; port: number };
  /**
   * The crash and stall policy of the API and the worker (infra/crash-policy.ts,
   * infra/loop-watchdog.ts): an event loop that has not turned for stallLimitMs
   * (EVENT_LOOP_STALL_LIMIT_MS, 10000) ends the process.
   */
  process: { stallLimitMs: number };
  /** Faults the test stack injects to prove the crash policy (TEST_FAULTS, APP_ENV=test only): null everywhere else. */
  testFaults: TestFaults | null;
}

/** What an injected fault does: throw outside any handler, reject with no handler, or block the event loop for good. */
export type FaultKind = 'uncaught_exception' | 'unhandled_rejection' | 'stall';
export const FAULT_KINDS: readonly FaultKind[] = ['uncaught_exception', 'unhandled_rejection', 'stall'];

/**
 * TEST_FAULTS=request-header: the API fires the fault an `X-Test-Fault` header names, in that
 * request's context, once it has answered. TEST_FAULTS=activity:<activity type>:<kind>: the worker
 * fires it in the context of the first activity of that type it runs.
 */
export type TestFaults = { requestHeader: true; activity: null } | { requestHeader: false; activity: { type: string; kind: FaultKind } };

export interface SandboxConfig {
  /** Sandbox processes per API or worker process (CONTENT_SANDBOX_PROCESSES, 2). */
  processes: number;
  /** Memory one task may add to an idle sandbox process, all kinds together, in MiB: the API's (CONTENT_SANDBOX_API_MEMORY_MB, 128) and the worker's (CONTENT_SANDBOX_WORKER_MEMORY_MB, 384). */
  apiMemoryMb: number;
  workerMemoryMb: number;
}

export const DEFAULT_SANDBOX: SandboxConfig = { processes: 2, apiMemoryMb: 128, workerMemoryMb: 384 };

export interface InboundLimitsConfig {
  /** Requests of inbound e-mail and the WhatsApp webhook per client address per minute (INBOUND_MAX_PER_ADDRESS_PER_MINUTE, 600). */
  maxPerAddressPerMinute: number;
  /** Inbound requests of one receiving account in flight per API process (INBOUND_IN_FLIGHT_PER_ACCOUNT, 4). */
  inFlightPerAccount: number;
  /** Inbound requests in flight per API process, all accounts (INBOUND_IN_FLIGHT, 16): at most this many bodies buffered. */
  inFlight: number;
}

export interface AuthLimitsConfig {
  /** Failed logins per account from one client address per 15 minutes, then that address is refused for that account (LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS, 10). */
  maxFailuresPerAccountAddress: number;
  /** Failed logins per client address per 15 minutes, all accounts (LOGIN_MAX_FAILURES_PER_ADDRESS, 100). */
  maxFailuresPerAddress: number;
  /** Failed logins per account per 15 minutes from all addresses, past which addresses not known-good are refused (LOGIN_MAX_FAILURES_PER_ACCOUNT, 100: NIST SP 800-63B's ceiling). */
  maxFailuresPerAccount: number;
  /** Failed logins of an account per 15 minutes past which attempts from addresses not known-good wait before their check (LOGIN_SLOWDOWN_AFTER_FAILURES, 10). */
  slowdownAfterFailures: number;
  /** The wait added per failure beyond it (LOGIN_SLOWDOWN_STEP_MS, 1000) and its ceiling (LOGIN_SLOWDOWN_MAX_MS, 10000). */
  slowdownStepMs: number;
  slowdownMaxMs: number;
  /** Refreshes per client address per minute (REFRESH_MAX_PER_ADDRESS_PER_MINUTE, 60). */
  refreshesPerAddressPerMinute: number;
  /** Password checks running at once per API process (PASSWORD_CHECKS_IN_FLIGHT, 4: libuv's default pool). */
  passwordChecksInFlight: number;
  /** Password checks waiting per API process before 429 (PASSWORD_CHECKS_QUEUED, 32). */
  passwordChecksQueued: number;
  /** How long a process trusts what it read of a user's status and token version (SESSION_CHECK_CACHE_MS, 5000). */
  sessionCheckCacheMs: number;
}

/**
 * Fairness between tenants in the shared outbound pools of each process (infra/tenant-limiter.ts)
 * and the webhook circuit breaker (domain/webhooks/circuit-breaker.ts). Shares are per process.
 */
export interface OutboundConfig {
  /** Webhook POST: resolution, TCP and TLS set-up (WEBHOOK_CONNECT_TIMEOUT_MS, 3000). */
  webhookConnectTimeoutMs: number;
  /** Webhook POST: the whole attempt, answer included (WEBHOOK_RESPONSE_TIMEOUT_MS, 10000). */
  webhookResponseTimeoutMs: number;
  /** Webhook attempts of one tenant sending at once per worker (WEBHOOK_ATTEMPTS_PER_TENANT, 64). */
  webhookAttemptsPerTenant: number;
  /** Webhook attempts of one tenant waiting for a slot per worker (WEBHOOK_WAITING_PER_TENANT, 64). */
  webhookWaitingPerTenant: number;
  /** Consecutive timeouts or 5xx that open a webhook's circuit (WEBHOOK_BREAKER_FAILURES, 5). */
  breakerFailureThreshold: number;
  /** How long an open circuit sends nothing before one probe (WEBHOOK_BREAKER_OPEN_MS, 30000). */
  breakerOpenMs: number;
  /** Webhook deliveries of one tenant parked while their circuits are open (WEBHOOK_PARKED_PER_TENANT, 10000). */
  webhookParkedPerTenant: number;
  /** Sends through tenants' own SMTP servers of one tenant at once per worker (SMTP_SENDS_PER_TENANT, 4). */
  smtpSendsPerTenant: number;
  /** Agent HTTP tool calls of one tenant at once per worker (TOOL_CALLS_PER_TENANT, 8). */
  toolCallsPerTenant: number;
}

export interface LlmConfig {
  baseUrl: string | null;
  apiKey: string | null;
  model: string;
  /** The models agents may name per plan (domain/tenancy/plans.ts; LLM_PLAN_MODELS replaces a plan's list). */
  planModels: PlanModels;
  /** Calls of one tenant at once per process (LLM_CALLS_PER_TENANT, 4; infra/tenant-limiter.ts). */
  callsPerTenant?: number;
}

export interface DeprecationRule {
  prefix: string;
  sunset: string;
  successor: string;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration:\n - ${problems.join('\n - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const MIN_SECRET_LENGTH = 32;
const MAX_WEBHOOK_RESPONSE_TIMEOUT_MS = 20_000;

/**
 * How to reach Temporal: a self-hosted cluster with TLS or mTLS, Temporal Cloud with an API key, or
 * the dev server. Loaded by @temporalio/envconfig (infra/temporal-profile.ts): Temporal's shared
 * environment configuration, the same variables and temporal.toml profiles as its CLI and SDKs.
 */
export interface TemporalConfig {
  address: string;
  namespace: string;
  uiUrl: string;
  /** How long the API waits for a workflow's answer (signal, query, Update) before a 503. */
  callDeadlineMs: number;
  /** The rest of the loaded profile: TLS (certificate files read at connect), API key, gRPC metadata. */
  profile: Omit<ClientConfigProfile, 'address' | 'namespace'>;
  /** Whether the worker registers the search attributes at start (a Cloud namespace may refuse it: register them there once). */
  registerSearchAttributes: boolean;
}

/** The API's stop by default: 5 s for the balancer to see /readyz fail, then up to 20 s for the requests in flight. */
export const DEFAULT_API_SHUTDOWN = { delayMs: 5_000, graceMs: 20_000 } as const;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const appEnv = parseAppEnv(env.APP_ENV, problems);

  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) {
      problems.push(`${name} is required`);
      return '';
    }
    return value;
  };
  const secret = (name: string): string => {
    const value = required(name);
    if (value && value.length < MIN_SECRET_LENGTH) {
      problems.push(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    if (value && appEnv === 'production' && /^(changeme|secret|dev|test)/i.test(value)) {
      problems.push(`${name} looks like a placeholder; production needs a real secret`);
    }
    return value;
  };
  const port = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) problems.push(`${name} must be a port number`);
    return n;
  };

  const count = (name: string, fallback: number, min = 1): number => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > 1_000_000) {
      problems.push(`${name} must be an integer from ${min} to 1000000`);
      return fallback;
    }
    return n;
  };

  const s3Endpoint = required('S3_ENDPOINT');
  const dataKeyText = secret('DATA_ENCRYPTION_KEY');
  const dataEncryptionKey = Buffer.from(dataKeyText, 'base64');
  if (dataKeyText && dataEncryptionKey.length !== 32) {
    problems.push('DATA_ENCRYPTION_KEY must be the base64 encoding of 32 bytes');
  }
  // Unset: allowed in development only, so a local receiver on loopback works out of the box.
  const allowPrivate = env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS === undefined ? appEnv === 'development' : env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS === 'true';
  if (allowPrivate && appEnv === 'production') {
    problems.push('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS cannot be enabled in production');
  }

  const config: Config = {
    appEnv,
    api: {
      host: env.API_HOST || '127.0.0.1',
      port: port('API_PORT', 3000),
      tls: apiTls(env, problems),
      trustedProxyHops: count('API_TRUSTED_PROXY_HOPS', 0, 0),
      shutdown: { delayMs: count('API_SHUTDOWN_DELAY_MS', DEFAULT_API_SHUTDOWN.delayMs, 0), graceMs: count('API_SHUTDOWN_GRACE_MS', DEFAULT_API_SHUTDOWN.graceMs, 0) },
      publicUrl: apiPublicUrl(env, appEnv, problems),
    },
    auth: {
      maxFailuresPerAccountAddress: count('LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS', 10),
      maxFailuresPerAddress: count('LOGIN_MAX_FAILURES_PER_ADDRESS', 100),
      maxFailuresPerAccount: count('LOGIN_MAX_FAILURES_PER_ACCOUNT', 100),
      slowdownAfterFailures: count('LOGIN_SLOWDOWN_AFTER_FAILURES', 10, 0),
      slowdownStepMs: count('LOGIN_SLOWDOWN_STEP_MS', 1_000, 0),
      slowdownMaxMs: count('LOGIN_SLOWDOWN_MAX_MS', 10_000, 0),
      refreshesPerAddressPerMinute: count('REFRESH_MAX_PER_ADDRESS_PER_MINUTE', 60),
      passwordChecksInFlight: count('PASSWORD_CHECKS_IN_FLIGHT', DEFAULT_PASSWORD_CHECKS_IN_FLIGHT),
      passwordChecksQueued: count('PASSWORD_CHECKS_QUEUED', 32, 0),
      sessionCheckCacheMs: count('SESSION_CHECK_CACHE_MS', 5_000, 0),
    },
    passwordHashing: passwordHashing(env, appEnv, problems),

    sandbox: {
      processes: count('CONTENT_SANDBOX_PROCESSES', DEFAULT_SANDBOX.processes),
      apiMemoryMb: count('CONTENT_SANDBOX_API_MEMORY_MB', DEFAULT_SANDBOX.apiMemoryMb, 16),
      workerMemoryMb: count('CONTENT_SANDBOX_WORKER_MEMORY_MB', DEFAULT_SANDBOX.workerMemoryMb, 16),
    },
    inbound: {
      maxPerAddressPerMinute: count('INBOUND_MAX_PER_ADDRESS_PER_MINUTE', 600),
      inFlightPerAccount: count('INBOUND_IN_FLIGHT_PER_ACCOUNT', 4),
      inFlight: count('INBOUND_IN_FLIGHT', DEFAULT_INBOUND_IN_FLIGHT),
    },
    databaseUrl: required('DATABASE_URL'),
    databasePoolMax: count('DATABASE_POOL_MAX', 20, 4),
    temporal: {
      uiUrl: env.TEMPORAL_UI_URL || 'http://127.0.0.1:8233',
      callDeadlineMs: count('TEMPORAL_CALL_DEADLINE_MS', 5_000),
      ...temporalProfile(env, problems),
      registerSearchAttributes: env.TEMPORAL_REGISTER_SEARCH_ATTRIBUTES !== 'false',
    },
    s3: {
      endpoint: s3Endpoint,
      publicEndpoint: env.S3_PUBLIC_ENDPOINT || s3Endpoint,
      credentials: s3Credentials(env, problems),
      bucket: env.S3_BUCKET || 'industrial-ops',
      region: env.S3_REGION || 'us-east-1',
      pathStyle: env.S3_PATH_STYLE !== 'false',
    },
    secrets: {
      jwt: secret('JWT_SECRET'),
      internalJwt: secret('INTERNAL_JWT_SECRET'),
      dataEncryptionKey,
    },
    smtp: { url: env.SMTP_URL || null, from: env.MAIL_FROM || 'Industrial Ops <no-reply@localhost>' },
    logLevel: env.LOG_LEVEL || (appEnv === 'test' ? 'warn' : 'info'),
    webhooks: { allowPrivateDestinations: allowPrivate },
    outbound: {
      webhookConnectTimeoutMs: count('WEBHOOK_CONNECT_TIMEOUT_MS', 3_000),
      webhookResponseTimeoutMs: count('WEBHOOK_RESPONSE_TIMEOUT_MS', 10_000),
      webhookAttemptsPerTenant: count('WEBHOOK_ATTEMPTS_PER_TENANT', 64),
      webhookWaitingPerTenant: count('WEBHOOK_WAITING_PER_TENANT', 64, 0),
      breakerFailureThreshold: count('WEBHOOK_BREAKER_FAILURES', 5),
      breakerOpenMs: count('WEBHOOK_BREAKER_OPEN_MS', 30_000),
      webhookParkedPerTenant: count('WEBHOOK_PARKED_PER_TENANT', 10_000),
      smtpSendsPerTenant: count('SMTP_SENDS_PER_TENANT', 4),
      toolCallsPerTenant: count('TOOL_CALLS_PER_TENANT', 8),
    },
    llm: {
      baseUrl: env.LLM_BASE_URL?.trim() || null,
      apiKey: env.LLM_API_KEY?.trim() || null,
      model: env.LLM_MODEL?.trim() || 'gpt-4o-mini',
      planModels: parsePlanModels(env.LLM_PLAN_MODELS, problems),
      callsPerTenant: count('LLM_CALLS_PER_TENANT', 4),
    },
    deprecations: parseDeprecations(env.API_DEPRECATIONS, problems),
    whatsapp: { apiBaseUrl: env.WHATSAPP_API_BASE_URL?.trim() || 'https://graph.facebook.com/v21.0' },
    metricsToken: env.METRICS_TOKEN?.trim() || null,
    workerHttp: { host: env.WORKER_HTTP_HOST || '127.0.0.1', port: port('WORKER_HTTP_PORT', 3001) },
    process: { stallLimitMs: count('EVENT_LOOP_STALL_LIMIT_MS', DEFAULT_STALL_LIMIT_MS, 1_000) },
    testFaults: testFaults(env.TEST_FAULTS, appEnv, problems),
  };
  // /metrics shows how the service runs (routes, error codes, backlogs): never open in production.
  // The API serves it on its public listener, so a token is the guard (the worker's too, alike).
  if (appEnv === 'production' && !config.metricsToken) {
    problems.push('METRICS_TOKEN is required in production: /metrics of the API and the worker would be open to anyone who reaches them');
  } else if (appEnv === 'production' && config.metricsToken!.length < MIN_SECRET_LENGTH) {
    problems.push(`METRICS_TOKEN must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const smtpProblem = config.smtp.url && appEnv === 'production' ? smtpTlsProblem(config.smtp.url) : null;
  if (smtpProblem) problems.push(smtpProblem);

  // An attempt runs within its activity's 30 s (its webhook lease, 3 s, is renewed every second while it runs): its deadline stays well inside.
  if (config.outbound.webhookResponseTimeoutMs > MAX_WEBHOOK_RESPONSE_TIMEOUT_MS) {
    problems.push(`WEBHOOK_RESPONSE_TIMEOUT_MS must be at most ${MAX_WEBHOOK_RESPONSE_TIMEOUT_MS}`);
  }
  if (config.secrets.jwt && config.secrets.jwt === config.secrets.internalJwt) {
    problems.push('JWT_SECRET and INTERNAL_JWT_SECRET must differ');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function passwordHashing(env: Env, appEnv: AppEnv, problems: string[]): ScryptParams {
  const raw = env.TEST_SCRYPT_LOG2_N?.trim();
  if (!raw) return OWASP_SCRYPT;
  const log2 = Number(raw);
  if (appEnv !== 'test') problems.push('TEST_SCRYPT_LOG2_N is for the test stack only (APP_ENV=test): password hashes use OWASP scrypt parameters');
  else if (!Number.isInteger(log2) || log2 < 10 || log2 > 17) problems.push('TEST_SCRYPT_LOG2_N must be an integer from 10 to 17');
  else return { ...OWASP_SCRYPT, N: 2 ** log2 };
  return OWASP_SCRYPT;
}

/** Inbound mail and WhatsApp requests in flight per API process: the bodies it buffers at once. */
export const DEFAULT_INBOUND_IN_FLIGHT = 16;

/** Password checks at once per API process: libuv's default pool of 4 threads (each holds scrypt's 128 MiB). */
export const DEFAULT_PASSWORD_CHECKS_IN_FLIGHT = 4;

/** The event loop's longest legitimate pause is far below this (docs/SECURITY.md, "Crash and stall policy"). */
export const DEFAULT_STALL_LIMIT_MS = 10_000;

function testFaults(raw: string | undefined, appEnv: AppEnv, problems: string[]): TestFaults | null {
  const value = raw?.trim();
  if (!value) return null;
  if (appEnv !== 'test') {
    problems.push('TEST_FAULTS is for the test stack only (APP_ENV=test)');
    return null;
  }
  if (value === 'request-header') return { requestHeader: true, activity: null };
  const [where, type, kind] = value.split(':');
  if (where === 'activity' && type && FAULT_KINDS.includes(kind as FaultKind)) return { requestHeader: false, activity: { type, kind: kind as FaultKind } };
  problems.push(`TEST_FAULTS must be request-header or activity:<activity type>:<${FAULT_KINDS.join('|')}>`);
  return null;
}

/**
 * API_PUBLIC_URL: an absolute http(s) URL without query or fragment, its trailing slash dropped.
 * Production must name it (a link to the listener's address would not reach anyone); elsewhere it
 * defaults to the listener's address, which is what `npm run up` and the test stacks are reached at.
 */
function apiPublicUrl(env: Env, appEnv: AppEnv, problems: string[]): string {
  const raw = env.API_PUBLIC_URL?.trim();
  if (!raw) {
    if (appEnv === 'production') problems.push('API_PUBLIC_URL is required in production: the download links the API hands out name it (e.g. https://ops.example.com)');
    const host = !env.API_HOST || env.API_HOST === '0.0.0.0' || env.API_HOST === '::' ? '127.0.0.1' : env.API_HOST;
    const tls = Boolean(env.API_TLS_CERT_FILE?.trim());
    return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${env.API_PORT || 3000}`;
  }
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    problems.push('API_PUBLIC_URL must be an absolute http(s) URL without credentials, query or fragment (e.g. https://ops.example.com)');
    return raw;
  }
  return withoutTrailingSlashes(raw);
}

function s3Credentials(env: NodeJS.ProcessEnv, problems: string[]): Config['s3']['credentials'] {
  const accessKey = env.S3_ACCESS_KEY?.trim();
  const secretKey = env.S3_SECRET_KEY?.trim();
  if (!accessKey && !secretKey) return 'environment';
  if (!accessKey || !secretKey) {
    problems.push("S3_ACCESS_KEY and S3_SECRET_KEY go together (both, or neither for the environment's role)");
    return 'environment';
  }
  return { accessKey, secretKey };
}

function apiTls(env: NodeJS.ProcessEnv, problems: string[]): Config['api']['tls'] {
  const certFile = env.API_TLS_CERT_FILE?.trim();
  const keyFile = env.API_TLS_KEY_FILE?.trim();
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) {
    problems.push('API_TLS_CERT_FILE and API_TLS_KEY_FILE go together (both or neither)');
    return null;
  }
  return { certFile, keyFile };
}

/**
 * The system mailer in production sends over TLS or not at all: TLS from the first byte
 * (`smtps://`) or STARTTLS required (`smtp://…?requireTLS=true`), certificates verified. Plain
 * `smtp://` is nodemailer's opportunistic STARTTLS, which a man in the middle who strips the offer
 * turns into clear text.
 */
export function smtpTlsProblem(url: string): string | null {
  const problem = (why: string) => `SMTP_URL ${why}: production requires TLS (smtps://host:465, or smtp://host:587?requireTLS=true)`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return problem('is not a URL');
  }
  // Query values as nodemailer reads them (shared.parseConnectionUrl): "true"/"false" are booleans.
  const option = (name: string) => parsed.searchParams.get(name);
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') return problem(`uses ${parsed.protocol.replace(/:$/, '')}`);
  if (option('ignoreTLS') === 'true') return problem('sets ignoreTLS');
  if (option('tls.rejectUnauthorized') === 'false') return problem('turns certificate verification off');
  // The scheme alone says `secure` (nodemailer ignores a `secure` query next to it).
  if (parsed.protocol === 'smtp:' && option('requireTLS') !== 'true') return problem('allows clear text');
  return null;
}

/**
 * Unset is production (issue 18): a deployment that forgets the variable gets the safe rules
 * (real secrets, no private webhook destinations). `npm run up` sets development and the test and
 * bench stacks set test.
 */
function parseAppEnv(raw: string | undefined, problems: string[]): AppEnv {
  const value = raw || 'production';
  if (value === 'development' || value === 'test' || value === 'production') return value;
  problems.push(`APP_ENV must be development, test or production (got "${value}")`);
  return 'production';
}

/** LLM_PLAN_MODELS: `{"<plan>": ["model", ...]}`; a plan it does not name keeps its default list. */
function parsePlanModels(raw: string | undefined, problems: string[]): PlanModels {
  if (!raw?.trim()) return DEFAULT_PLAN_MODELS;
  const refuse = (why: string) => {
    problems.push(`LLM_PLAN_MODELS must be a JSON object from plan (${PLAN_NAMES.join(', ')}) to a list of model names: ${why}`);
    return DEFAULT_PLAN_MODELS;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return refuse('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return refuse('not an object');
  const models: Record<PlanName, readonly string[]> = { ...DEFAULT_PLAN_MODELS };
  for (const [plan, list] of Object.entries(parsed)) {
    if (!isPlanName(plan)) return refuse(`"${plan}" is no plan`);
    if (!Array.isArray(list) || !list.every((m) => typeof m === 'string' && m.trim().length > 0 && m.length <= 100))
      return refuse(`the list of ${plan} is not an array of model names`);
    models[plan] = (list as string[]).map((m) => m.trim());
  }
  return models;
}

function parseDeprecations(raw: string | undefined, problems: string[]): DeprecationRule[] {
  if (!raw) return [];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!Array.isArray(parsed)) throw new Error('not an array');
    return parsed.map((rule) => {
      const r = rule as Partial<DeprecationRule>;
      if (typeof r.prefix !== 'string' || typeof r.sunset !== 'string' || typeof r.successor !== 'string') {
        throw new Error('each rule needs prefix, sunset and successor strings');
      }
      if (Number.isNaN(Date.parse(r.sunset))) throw new Error(`sunset "${r.sunset}" is not a date`);
      return { prefix: r.prefix, sunset: r.sunset, successor: r.successor };
    });
  } catch (err) {
    problems.push(`API_DEPRECATIONS must be a JSON array of {prefix,sunset,successor}: ${(err as Error).message}`);
    return [];
  }
}
