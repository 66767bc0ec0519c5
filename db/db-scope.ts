import { AsyncLocalStorage } from 'node:async_hooks';
import { Knex } from 'knex';
import { SCOPE_SETTING, SYSTEM_SCOPE, TENANT_SETTING } from './row-security';

/**
 * Which rows a pooled connection may see, decided per async context and applied when the
 * connection is taken from the pool (db/row-security.ts holds the policy, which admits nothing
 * when neither a tenant nor the system scope is declared):
 * - inside an API request of a signed-in user: nothing until the request declares its tenant
 *   (authenticate does, from the verified token), then that tenant's rows only, for every query
 *   on the pool or in a transaction, whether or not it carries the tenant filter;
 * - inside a worker's activity whose input names its tenant (`{ tenantId }`): that tenant's rows
 *   only (activities/db-scope.ts);
 * - inside a request of a route without a user (`auth: 'none'` or `'internal'`: login by e-mail,
 *   token refresh, inbound e-mail and WhatsApp callbacks, the probes, the internal service API),
 *   and outside any request or tenant activity (the worker's system jobs, CLIs, migrations): the
 *   system scope. A unit of work narrows its transaction to its tenant in every case.
 */
interface Scope {
  tenantId: string | null;
  system: boolean;
}

const storage = new AsyncLocalStorage<Scope>();
const OUTSIDE_REQUESTS: Readonly<Scope> = { tenantId: null, system: true };

/** Runs an API request's chain in its own scope: the system one, or closed until `declareRequestTenant`. */
export function runRequestScope<T>(kind: 'system' | 'tenant', work: () => Promise<T>): Promise<T> {
  return storage.run({ tenantId: null, system: kind === 'system' }, work);
}

/** Runs `work` (a worker's activity of one tenant) seeing `tenantId`'s rows only. */
export function runTenantScope<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
  return storage.run({ tenantId, system: false }, work);
}

/** The signed-in request's tenant: from here on its queries see that tenant's rows only. */
export function declareRequestTenant(tenantId: string): void {
  const scope = storage.getStore();
  if (!scope || scope.system) throw new Error('declareRequestTenant outside a tenant request scope');
  scope.tenantId = tenantId;
}

function currentScope(): Readonly<Scope> {
  return storage.getStore() ?? OUTSIDE_REQUESTS;
}

type Connection = { query(config: { text: string; values: unknown[] }): Promise<unknown>; [APPLIED]?: string };
const APPLIED = Symbol('dbScope');

/**
 * Whether the new top-level transaction `tx` runs on a connection whose session already sees
 * `tenantId`'s rows only: `applyScopeOnAcquire` set it when the pool handed the connection out, and
 * a new transaction has no setting of its own yet, so declaring the tenant again would change
 * nothing. Not for a nested transaction (a savepoint): its outer one may have declared another
 * scope for itself, which the session does not show.
 */
export async function sessionSeesOnly(tx: Knex.Transaction, tenantId: string): Promise<boolean> {
  const connection = await (tx.client as unknown as { acquireConnection(): Promise<Connection> }).acquireConnection();
  return connection[APPLIED] === `tenant:${tenantId}`;
}

/**
 * Sets the current scope on every connection `db` takes from its pool (one round trip, only when
 * the connection last served another scope). Session settings: a transaction's own declaration
 * (set_config local) overrides them until it ends.
 */
export function applyScopeOnAcquire(db: Knex): void {
  const client = db.client as { acquireConnection(): Promise<Connection>; releaseConnection(connection: Connection): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async () => {
    const connection = await acquire();
    const { tenantId, system } = currentScope();
    const key = system ? SYSTEM_SCOPE : `tenant:${tenantId ?? ''}`;
    if (connection[APPLIED] === key) return connection;
    try {
      await connection.query({
        text: `select set_config('${SCOPE_SETTING}', $1, false), set_config('${TENANT_SETTING}', $2, false)`,
        values: [system ? SYSTEM_SCOPE : '', tenantId ?? ''],
      });
    } catch (error) {
      await client.releaseConnection(connection);
      throw error;
    }
    connection[APPLIED] = key;
    return connection;
  };
}
