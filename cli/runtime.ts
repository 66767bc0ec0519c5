/**
 * What a command works with, made on first use and closed after it: the services' configuration
 * (infra/config.ts, the same environment the API and the worker read), a small pool as the app's
 * role (DATABASE_URL), Temporal, the login limiter, and the operator it acts as.
 *
 * The pool runs in the system scope of row-level security outside `inTenant` (db/db-scope.ts): the
 * operator's views across tenants (tenants, tokens, the outbox, webhooks in trouble) and the one
 * read that finds which tenant holds an id. Everything done for one tenant runs inside
 * `inTenant`, seeing that tenant's rows only; its changes are units of work in that tenant.
 */
import os from 'node:os';
import { createLoginLimits, type LoginLimits } from '../api/login-limits';
import type { Actor } from '../db/audit';
import { runTenantScope } from '../db/db-scope';
import { createDb, type Db, type Queryable } from '../db/knex';
import { tenantScope, type TenantScope } from '../db/tenant-scope';
import type { UnitContext } from '../db/unit-of-work';
import { setPasswordHashParams } from '../domain/auth/passwords';
import { loadConfig, type Config } from '../infra/config';
import { requireTenant } from '../services/tenants';
import { createTemporalGateway, type TemporalGateway } from '../infra/temporal';
import { UsageError } from './errors';

/** Connections the CLI holds at most: one command at a time, a few queries in parallel. */
const POOL = { min: 0, max: 3 };

/** Who the audit trail names for an operator's change: `--as`, else OPS_OPERATOR, else the login name. */
export function operatorName(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const name = given ?? env.OPS_OPERATOR ?? os.userInfo().username;
  if (!/^[\w.@:+-]{1,100}$/.test(name)) throw new UsageError(`--as must be 1 to 100 letters, digits or . _ @ : + - (got ${JSON.stringify(name)})`);
  return name;
}

/** A tenant's scope (reads: its rows only) and the context of its units of work (the operator as actor). */
export interface InTenant {
  scope: TenantScope;
  context: UnitContext;
}

export class Runtime {
  readonly actor: Actor;
  private loaded: Config | null = null;
  private pool: Db | null = null;
  private gateway: TemporalGateway | null = null;

  constructor(readonly operator: string) {
    this.actor = { type: 'operator', id: operator };
  }

  config(): Config {
    if (!this.loaded) {
      this.loaded = loadConfig(process.env);
      setPasswordHashParams(this.loaded.passwordHashing);
    }
    return this.loaded;
  }

  /** The app's role (DATABASE_URL), as the API and the worker connect. */
  db(): Db {
    this.pool ??= createDb(this.config().databaseUrl, POOL);
    return this.pool;
  }

  temporal(): TemporalGateway {
    this.gateway ??= createTemporalGateway(this.config().temporal);
    return this.gateway;
  }

  loginLimits(): LoginLimits {
    return createLoginLimits(this.db(), this.config().auth);
  }

  /** Runs `work` seeing `tenantId`'s rows only, with its scope and the context of its units of work. */
  inTenant<T>(tenantId: string, work: (tenant: InTenant) => Promise<T>): Promise<T> {
    return runTenantScope(tenantId, () => work({ scope: tenantScope(this.db(), tenantId), context: { tenantId, actor: this.actor, requestId: null } }));
  }

  /** `read` over one tenant's rows, in its scope, when `tenantRef` (an id or slug) names one; else over every tenant's. */
  async inTenantOrAll<T>(tenantRef: string | undefined, read: (db: Queryable, tenantId: string | undefined) => Promise<T>): Promise<T> {
    if (tenantRef === undefined) return read(this.db(), undefined);
    const tenant = await requireTenant(this.db(), tenantRef);
    return this.inTenant(tenant.id, ({ scope }) => read(scope.db, tenant.id));
  }

  async close(): Promise<void> {
    await Promise.all([this.pool?.destroy(), this.gateway?.close()]);
  }
}
