import { ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../infra/config';
import type { Db } from '../db/knex';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import type { TemporalGateway } from '../infra/temporal';
import type { ObjectStore } from '../infra/object-store';
import type { SandboxPool } from '../infra/sandbox/pool';
import type { PlanReadingsSignals } from '../orchestration/plan-readings-signals';
import type { ExportLinks } from '../services/privacy';
import type { Permission, Role } from '../domain/auth/permissions';
import type { ServiceScope } from '../domain/auth/tokens';
import type { Lifecycle } from './graceful-shutdown';
import type { InboundLimits } from './inbound-limits';
import type { InboundMailParser } from '../infra/inbound-mail';
import type { LoginLimits } from './login-limits';
import type { ApiMetrics } from './metrics';
import type { RateFigures, RateLimiter } from './rate-limiter';
import type { SessionCheck } from './session-check';

/** Everything the API needs from the outside world; tests build it against the real services. */
export interface AppDeps {
  config: Config;
  db: Db;
  temporal: TemporalGateway;
  objectStore: ObjectStore;
  logger: Logger;
  rateLimiter: RateLimiter;
  loginLimits: LoginLimits;
  inboundLimits: InboundLimits;
  /** Inbound e-mail parsed in bounded worker threads, a tenant at most its share (infra/inbound-mail.ts). */
  mailParser: InboundMailParser;
  sessions: SessionCheck;
  metrics: ApiMetrics;
  /** Draining once a stop began: /readyz answers 503 (api/graceful-shutdown.ts). */
  lifecycle: Lifecycle;
  /** The coalesced readings signals of condition and predictive plans (orchestration/plan-readings-signals.ts). */
  planReadings: PlanReadingsSignals;
  /** How subject exports' download links are made: the public base URL and the signing key. */
  exportLinks: ExportLinks;
  /** Where untrusted files are decoded and reports rendered, off the event loop (infra/sandbox/pool.ts). */
  sandbox: SandboxPool;
}

export interface UserPrincipal {
  kind: 'user';
  userId: string;
  tenantId: string;
  role: Role;
  permissions: Permission[];
  /** The session the access token belongs to (its `sid`): what logout revokes. */
  sessionId: string;
}

export interface ServicePrincipal {
  kind: 'service';
  serviceId: string;
  /** The token's id (`jti`): what a revocation names. */
  tokenId: string;
  scopes: readonly ServiceScope[];
  tenants: readonly string[] | '*';
}

export interface AppState {
  requestId: string;
  log: Logger;
  principal?: UserPrincipal | ServicePrincipal;
  /** The budget that counted this request, for its X-RateLimit-* headers (middleware/rate-limit.ts). */
  rateLimit?: RateFigures;
}

export type AppContext = ParameterizedContext<AppState, { deps: AppDeps; params: Record<string, string> }> & {
  request: { body?: unknown };
};

/** The authenticated user of a route declared with `auth: 'user'`. */
export function userOf(ctx: AppContext): UserPrincipal {
  const p = ctx.state.principal;
  if (!p || p.kind !== 'user') throw new Error('route reached without an authenticated user');
  return p;
}

/** The signed-in user's tenant scope: every read a route makes of its tenant's data starts here. */
export function tenantScopeOf(ctx: AppContext): TenantScope {
  return tenantScope(ctx.deps.db, userOf(ctx).tenantId);
}
