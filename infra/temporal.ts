import { status } from '@grpc/grpc-js';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { toClientOptions } from '@temporalio/envconfig';
import { temporal } from '@temporalio/proto';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { tracingInstalled } from './tracing';
import type { TemporalConfig } from './config';
import { grpcStatusOf } from './error-chain';
import { SEARCH_ATTRIBUTES } from './search-attributes';

/**
 * What both connections (the client's Connection and the worker's NativeConnection) take to reach
 * the configured cluster, as envconfig turns a profile into options: TLS (a CA, a client
 * certificate pair for mTLS, a server name), an API key the SDK sends as `authorization: Bearer
 * <key>` (TLS on with it unless TLS is disabled), gRPC metadata. Certificate files are read here, at connect.
 */
export function temporalConnectionOptions(config: Pick<TemporalConfig, 'address' | 'profile'>): {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  const { tls, apiKey } = toClientOptions(config.profile).connectionOptions;
  const metadata = config.profile.grpcMeta;
  return { address: config.address, ...(tls != null ? { tls } : {}), ...(apiKey ? { apiKey } : {}), ...(metadata ? { metadata } : {}) };
}

/**
 * The API's and scripts' way to Temporal. The connection is made on first use and remade after a
 * failure, so the API starts (and reports Temporal as down on /internal/health) while Temporal is
 * unreachable, and recovers without a restart.
 */
export interface TemporalGateway {
  client(): Promise<Client>;
  /** How long one API call on Temporal may take, connecting included (TEMPORAL_CALL_DEADLINE_MS). */
  readonly callDeadlineMs: number;
  /** Resolves when the frontend answers within the deadline; rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Connecting gives up after this long (or the call deadline when shorter). */
const CONNECT_TIMEOUT_MS = 3_000;

export function createTemporalGateway(config: Pick<TemporalConfig, 'address' | 'namespace' | 'profile'> & Partial<Pick<TemporalConfig, 'callDeadlineMs'>>): TemporalGateway {
  const { namespace } = config;
  const callDeadlineMs = config.callDeadlineMs ?? 5_000;
  let pending: Promise<{ connection: Connection; client: Client }> | null = null;

  function connect() {
    if (!pending) {
      pending = Promise.resolve()
        .then(() => Connection.connect({ ...temporalConnectionOptions(config), connectTimeout: Math.min(CONNECT_TIMEOUT_MS, callDeadlineMs) }))
        // Starts, signals, Updates and queries carry the caller's trace context. Only when this process
        // traces: without an SDK the interceptor still opened a no-op span around every call.
        .then((connection) => ({
          connection,
          client: new Client({ connection, namespace, interceptors: tracingInstalled() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : {} }),
        }))
        .catch((err) => {
          pending = null;
          throw err;
        });
    }
    return pending;
  }

  return {
    callDeadlineMs,
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

/** gRPC PERMISSION_DENIED and UNIMPLEMENTED: a managed namespace that does not let workers register. */
const REFUSED_CODES: ReadonlySet<number> = new Set([status.PERMISSION_DENIED, status.UNIMPLEMENTED]);

/**
 * Adds the search attributes that are missing; existing ones are left as they are. A namespace
 * that refuses the operator call (Temporal Cloud) answers `refused`: register them there once
 * (README, Running in production) and set TEMPORAL_REGISTER_SEARCH_ATTRIBUTES=false.
 */
export async function ensureSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[] | 'refused'> {
  try {
    return await addMissingSearchAttributes(connection, namespace);
  } catch (err) {
    const code = grpcStatusOf(err);
    if (code !== null && REFUSED_CODES.has(code)) return 'refused';
    throw err;
  }
}

async function addMissingSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((a) => !known.has(a.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((a) => [a.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
  return missing.map((a) => a.name);
}
