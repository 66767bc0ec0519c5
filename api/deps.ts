import { runTenantScope } from '../db/db-scope';
import { createDb } from '../db/knex';
import { tenantScope } from '../db/tenant-scope';
import { dummyHash, setPasswordHashParams } from '../domain/auth/passwords';
import { exportLinkKey } from '../domain/privacy/export-link';
import { Config } from '../infra/config';
import { createInboundMailParser, MAIL_PARSE_THREADS } from '../infra/inbound-mail';
import { createLogger } from '../infra/logger';
import { createObjectStore } from '../infra/object-store';
import { createSandbox } from '../infra/sandbox/pool';
import { createTemporalGateway } from '../infra/temporal';
import { signalPlan } from '../orchestration/maintenance';
import { PlanReadingsSignals } from '../orchestration/plan-readings-signals';
import { callTemporal } from '../orchestration/temporal-call';
import { conditionPlansOf } from '../services/maintenance-condition';
import { AppDeps } from './context';
import { createLifecycle } from './graceful-shutdown';
import { createInboundLimits } from './inbound-limits';
import { createLoginLimits } from './login-limits';
import { createApiMetrics } from './metrics';
import { createRateLimiter } from './rate-limiter';
import { createSessionCheck } from './session-check';

/** Real dependencies from configuration; `close` releases them on shutdown. */
export function createDeps(config: Config): AppDeps & { close(): Promise<void> } {
  setPasswordHashParams(config.passwordHashing);
  // Made now, so the first login for an unknown email costs what a wrong password does.
  void dummyHash();
  const db = createDb(config.databaseUrl, { min: 0, max: config.databasePoolMax });
  const temporal = createTemporalGateway(config.temporal);
  const logger = createLogger(config.logLevel, { component: 'api' });
  const planReadings = new PlanReadingsSignals(
    // A flush runs in the async context of the request that scheduled it: each tenant's lookup declares its own scope.
    (tenantId, series) => runTenantScope(tenantId, () => conditionPlansOf(tenantScope(db, tenantId), series)),
    (tenantId, planId) => callTemporal(temporal, "could not tell the plan's workflow of new readings", (client) => signalPlan(client, tenantId, planId, { kind: 'readings' })),
    logger,
  );
  const sandbox = createSandbox('api', config.sandbox, logger);
  return {
    config,
    db,
    temporal,
    objectStore: createObjectStore(config.s3),
    logger,
    rateLimiter: createRateLimiter(db),
    loginLimits: createLoginLimits(db, config.auth),
    inboundLimits: createInboundLimits(db, config.inbound),
    mailParser: createInboundMailParser({ threads: MAIL_PARSE_THREADS }),
    sessions: createSessionCheck(db, config.auth.sessionCheckCacheMs),
    metrics: createApiMetrics(db, config.outbound.webhookParkedPerTenant),
    lifecycle: createLifecycle(),
    planReadings,
    // Derived from JWT_SECRET (HKDF, for this use only): rotating that secret also ends the links handed out.
    exportLinks: { publicUrl: config.api.publicUrl, key: exportLinkKey(config.secrets.jwt) },
    sandbox,
    async close() {
      sandbox.close();
      await planReadings.close();
      await temporal.close();
      await db.destroy();
    },
  };
}
