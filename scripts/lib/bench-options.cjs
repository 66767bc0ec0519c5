'use strict';
// The options of `npm run bench` (scripts/bench.mjs): which benches, how many service workers the
// throwaway stack starts, the size of the due burst, and a Temporal cluster of the operator's
// instead of the dev server. Parsed with Node's own util.parseArgs; Node built-ins only, so
// `--help` answers before anything is built.
const { parseArgs } = require('node:util');
const { TEMPORAL_CONNECTION_VARIABLE } = require('./services.cjs');

/** Every bench of dist/bench/run.js, in its order (a unit test holds this list to bench/run.ts). */
const BENCHES = Object.freeze(['http', 'assets', 'webhooks', 'kill', 'pool', 'prognostics', 'readings-plans', 'export', 'pii', 'due', 'capacity', 'maintenance']);

/**
 * The flags that name the Temporal cluster, each the variable of Temporal's environment
 * configuration (@temporalio/envconfig, infra/temporal-profile.ts) that it sets. An API key has no
 * flag: a secret never goes on a command line (TEMPORAL_API_KEY, or the profile's api_key).
 */
const TEMPORAL_FLAGS = Object.freeze({
  'temporal-address': 'TEMPORAL_ADDRESS',
  'temporal-namespace': 'TEMPORAL_NAMESPACE',
  'temporal-tls': 'TEMPORAL_TLS',
  'temporal-tls-server-ca-cert': 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'temporal-tls-client-cert': 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'temporal-tls-client-key': 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'temporal-tls-server-name': 'TEMPORAL_TLS_SERVER_NAME',
  'temporal-profile': 'TEMPORAL_PROFILE',
  'temporal-config-file': 'TEMPORAL_CONFIG_FILE',
});

/** At most this many service workers: each is a Node process of about 0.7 GiB with idle plans. */
const MAX_WORKERS = 64;

const USAGE = `Usage: npm run bench -- [bench ...] [options]

Runs the named benches (all when none is named) on a throwaway stack: PostgreSQL, MinIO, the
migrations, service workers from dist/ and, unless --temporal-address names a cluster, a Temporal
dev server. Benches: ${BENCHES.join(', ')}.

Options:
  --workers <n>              service worker processes the stack starts (1; BENCH_WORKERS); the
                             due bench's ceiling runs on as many worker processes
  --plans <n>                plans due at one instant in the due bench (10000; BENCH_DUE_PLANS)
  --temporal-address <host:port>
                             a Temporal cluster instead of the dev server (BENCH_TEMPORAL_ADDRESS);
                             the rest of its profile comes from the flags below, else from
                             TEMPORAL_NAMESPACE, TEMPORAL_TLS*, TEMPORAL_API_KEY, TEMPORAL_PROFILE
                             and TEMPORAL_CONFIG_FILE as for the service (docs/CONFIGURATION.md)
  --temporal-namespace <name>  its namespace (default)
  --temporal-tls             TLS to it (on anyway with client certificates or an API key)
  --temporal-tls-server-ca-cert <file>, --temporal-tls-client-cert <file>,
  --temporal-tls-client-key <file>, --temporal-tls-server-name <name>,
  --temporal-profile <name>, --temporal-config-file <file>
                             as TEMPORAL_TLS_SERVER_CA_CERT_PATH ... TEMPORAL_CONFIG_FILE
  -h, --help                 this text

Example: npm run bench -- due --workers 4 --plans 10000 --temporal-address 127.0.0.1:17233
`;

/** A positive integer from a flag or a variable, at most `max`; throws naming where it came from. */
function positiveInteger(text, where, max = Number.MAX_SAFE_INTEGER) {
  if (!/^[1-9][0-9]*$/.test(String(text).trim()) || Number(text) > max) throw new Error(`${where} must be a whole number from 1 to ${max}, not "${text}"`);
  return Number(text);
}

/** host:port, the form every Temporal SDK takes. */
function temporalAddress(text, where) {
  if (!/^[^\s:/]+:[1-9][0-9]{0,4}$/.test(text) || Number(text.split(':').pop()) > 65535) throw new Error(`${where} must be host:port, not "${text}"`);
  return text;
}

/**
 * Parses the command line and the environment.
 * @param {string[]} argv  the arguments after the script (`process.argv.slice(2)`)
 * @param {Record<string, string|undefined>} env
 * @returns {{ help: true, usage: string } | { help: false, benches: string[], workers: number, env: Record<string,string>, temporal: Record<string,string>|null }}
 *   env: what the bench process reads (BENCH_DUE_PLANS); temporal: the connection variables of the
 *   operator's cluster for every process of the stack, or null for the dev server.
 */
function parseBenchOptions(argv, env = process.env) {
  const options = {
    help: { type: 'boolean', short: 'h' },
    workers: { type: 'string' },
    plans: { type: 'string' },
    ...Object.fromEntries(Object.keys(TEMPORAL_FLAGS).map((flag) => [flag, { type: flag === 'temporal-tls' ? 'boolean' : 'string' }])),
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new Error(`${error.message}\n\n${USAGE}`, { cause: error });
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, usage: USAGE };

  const unknown = positionals.filter((name) => !BENCHES.includes(name));
  if (unknown.length) throw new Error(`no bench named ${unknown.join(', ')}: the benches are ${BENCHES.join(', ')}`);

  const workers =
    values.workers !== undefined
      ? positiveInteger(values.workers, '--workers', MAX_WORKERS)
      : env.BENCH_WORKERS
        ? positiveInteger(env.BENCH_WORKERS, 'BENCH_WORKERS', MAX_WORKERS)
        : 1;
  const benchEnv = {};
  if (values.plans !== undefined) benchEnv.BENCH_DUE_PLANS = String(positiveInteger(values.plans, '--plans'));
  else if (env.BENCH_DUE_PLANS) benchEnv.BENCH_DUE_PLANS = String(positiveInteger(env.BENCH_DUE_PLANS, 'BENCH_DUE_PLANS'));

  const address = values['temporal-address'] ?? (env.BENCH_TEMPORAL_ADDRESS || undefined);
  const temporalFlagsGiven = Object.keys(TEMPORAL_FLAGS).filter((flag) => flag !== 'temporal-address' && values[flag] !== undefined);
  if (address === undefined) {
    if (temporalFlagsGiven.length)
      throw new Error(`--${temporalFlagsGiven[0]} names a part of a Temporal cluster: give its --temporal-address too (without one the bench starts a dev server)`);
    return { help: false, benches: positionals, workers, env: benchEnv, temporal: null };
  }
  // The operator's cluster: their TEMPORAL_* connection variables (only then), the flags over them.
  const temporal = {};
  for (const [name, value] of Object.entries(env)) if (TEMPORAL_CONNECTION_VARIABLE.test(name) && value !== undefined && value !== '') temporal[name] = value;
  for (const [flag, variable] of Object.entries(TEMPORAL_FLAGS)) {
    if (values[flag] === undefined) continue;
    temporal[variable] = flag === 'temporal-tls' ? 'true' : values[flag];
  }
  temporal.TEMPORAL_ADDRESS = temporalAddress(address, values['temporal-address'] !== undefined ? '--temporal-address' : 'BENCH_TEMPORAL_ADDRESS');
  if (!temporal.TEMPORAL_NAMESPACE) temporal.TEMPORAL_NAMESPACE = 'default';
  return { help: false, benches: positionals, workers, env: benchEnv, temporal };
}

module.exports = { BENCHES, TEMPORAL_FLAGS, MAX_WORKERS, USAGE, parseBenchOptions };
