/**
 * Temporal's shared environment configuration, as its CLI and SDKs read it (@temporalio/envconfig):
 * a temporal.toml profile (TEMPORAL_CONFIG_FILE, else the user's config directory; TEMPORAL_PROFILE,
 * else "default"), overridden field by field by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH,
 * TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME (and the *_DATA and
 * TEMPORAL_GRPC_META_* variants). An operator's existing profile works unchanged.
 */
import fs from 'node:fs';
import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';

type Env = Record<string, string | undefined>;

/** The project's earlier names, still read: each fills in only where its standard name is unset. */
export const TEMPORAL_TLS_ALIASES = {
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
} as const;

const DEV_SERVER = { address: '127.0.0.1:7233', namespace: 'default' };

export interface TemporalProfile {
  address: string;
  namespace: string;
  /** The rest of the profile: TLS, API key, gRPC metadata. */
  profile: Omit<ClientConfigProfile, 'address' | 'namespace'>;
}

/** Loads the profile; what is wrong with it goes to `problems` (the dev server's profile then). */
export function temporalProfile(env: Env, problems: string[]): TemporalProfile {
  const temporalEnv = temporalVariables(env);
  const flag = temporalEnv.TEMPORAL_TLS;
  if (flag !== undefined && !['true', 'false', '1', '0'].includes(flag)) problems.push('TEMPORAL_TLS must be true or false');
  // envconfig skips a missing file silently (right for the default location, wrong for a file named on purpose).
  const file = temporalEnv.TEMPORAL_CONFIG_FILE;
  if (file !== undefined && !fs.existsSync(file)) problems.push(`TEMPORAL_CONFIG_FILE ${file} does not exist`);

  let loaded: ClientConfigProfile = {};
  try {
    loaded = loadClientConfigProfile({ overrideEnvVars: temporalEnv });
  } catch (err) {
    problems.push(`Temporal client configuration: ${(err as Error).message}`);
  }
  const tls = loaded.tls;
  // envconfig drops a lone certificate or key without a word: the connection would lack mTLS.
  if (tls && !tls.disabled && Boolean(tls.clientCert) !== Boolean(tls.clientKey)) {
    problems.push("TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or the profile's client_cert and client_key) go together: both or neither");
  }
  const { address = DEV_SERVER.address, namespace = DEV_SERVER.namespace, ...connection } = loaded;
  return { address, namespace, profile: connection };
}

/**
 * The environment envconfig sees: empty values count as unset (a blank line of a deployment
 * template must not name the file ""), and the aliases fill the gaps of their standard names.
 */
function temporalVariables(env: Env): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value?.trim()) set[name] = value.trim();
  for (const [alias, standard] of Object.entries(TEMPORAL_TLS_ALIASES)) if (set[alias] && !set[standard]) set[standard] = set[alias];
  return set;
}
