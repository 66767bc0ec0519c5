import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from './search-attributes';

/**
 * The API's and scripts' way to Temporal. The connection is made on first use and remade after a
 * failure, so the API starts (and reports Temporal as down on /internal/health) while Temporal is
 * unreachable, and recovers without a restart.
 */
export interface TemporalGateway {
  client(): Promise<Client>;
  /** Resolves when the frontend answers within the deadline; rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function createTemporalGateway(address: string, namespace: string): TemporalGateway {
  let pending: Promise<{ connection: Connection; client: Client }> | null = null;

  function connect() {
    if (!pending) {
      pending = Connection.connect({ address, connectTimeout: 3_000 })
        .then((connection) => ({ connection, client: new Client({ connection, namespace }) }))
        .catch((err) => {
          pending = null;
          throw err;
        });
    }
    return pending;
  }

  return {
    async client() {
      return (await connect()).client;
    },
    async ping(timeoutMs = 2_000) {
      const { connection } = await connect();
      await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
    },
    async close() {
      const current = pending;
      pending = null;
      if (current) await (await current).connection.close().catch(() => undefined);
    },
  };
}

/** Adds the search attributes that are missing; existing ones are left as they are. */
export async function ensureSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((a) => !known.has(a.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((a) => [a.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return missing.map((a) => a.name);
}
