/**
 * deploy/k8s cannot rot unseen: the base, the production overlay and the Temporal example are
 * rendered by the pinned kustomize as `kubectl apply -k` renders them, validated strictly against
 * the Kubernetes JSON schemas of the oldest and newest supported release (kubernetes-validate), the
 * PodMonitor and the PrometheusRule against the Prometheus Operator's CRDs, and held to the rollout's rules: migrations in
 * front of every pod that needs them, settings that roll the pods when they change, replicas
 * spread, traffic limited to what the service speaks, the API autoscaled, every pod scraped and
 * labelled; and to the project's: probes on the process's own endpoints (liveness as the stall
 * watchdog's backstop), memory sized from the measured parts, a hardened security context, a drain
 * that fits the termination grace, placeholders only in the Secrets.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { msToNumber } from '@temporalio/common/lib/time';
import { parse } from 'yaml';
import goModules = require('../../../scripts/lib/go-module-file.cjs');
import supervisor = require('../../../scripts/lib/supervisor.cjs');
import { DEFAULT_STALL_LIMIT_MS } from '../../../infra/config';
import { WORKER_TUNING } from '../../../workers/options';
import { crdValidator, KUBERNETES_VERSIONS, kubernetesTools, loadFile, type Manifest, podOf, render, ROOT, schemaProblems, type Tools } from '../../support/kubernetes-manifests';
import { allowed, selects } from '../../support/network-policy';
import { podMemory, quantityMiB, podSettingsOf } from '../../support/pod-memory';

const K8S = path.join(ROOT, 'deploy', 'k8s');
const BASE = path.join(K8S, 'base');
const PRODUCTION = path.join(K8S, 'overlays', 'production');
const TEMPORAL = path.join(K8S, 'temporal');
const POD_MONITOR = 'monitoring.coreos.com/v1/PodMonitor';
const PROMETHEUS_RULE = 'monitoring.coreos.com/v1/PrometheusRule';
const APP = ['industrial-ops-api', 'industrial-ops-worker'];

let tools: Tools;
let base: Manifest[];
let production: Manifest[];
let temporal: Manifest[];
const examples = [BASE, TEMPORAL].flatMap((dir) =>
  fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.example.yaml'))
    .flatMap((file) => loadFile(path.join(dir, file))),
);

beforeAll(async () => {
  tools = await kubernetesTools(); // built or fetched once per machine (npm test's tools step does it first)
  base = render(tools, BASE);
  production = render(tools, PRODUCTION);
  temporal = render(tools, TEMPORAL);
}, 600_000);

const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const named = (manifests: Manifest[], kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name)!;
const id = (m: Manifest) => `${m.kind}/${m.metadata.name}`;
const configOf = (manifests: Manifest[]) => ofKind(manifests, 'ConfigMap').find((m) => m.metadata.name.startsWith('industrial-ops-config'))!.data as Record<string, string>;
const secretKeys = new Map(examples.filter((s) => s.kind === 'Secret').map((s) => [s.metadata.name, Object.keys(s.stringData as object)]));

describe('the Kubernetes manifests', () => {
  it('are valid, strictly, under the Kubernetes schemas (and the PodMonitor and the PrometheusRule under their CRDs)', () => {
    const all = [...base, ...production, ...temporal, ...examples];
    expect(schemaProblems(tools, all, [POD_MONITOR, PROMETHEUS_RULE])).toEqual([]);
    // A misspelt field is refused, as the API server would refuse it, in a built-in kind ...
    const api = structuredClone(named(base, 'Deployment', 'industrial-ops-api'));
    api.spec.template.spec.containers[0].readinesProbe = api.spec.template.spec.containers[0].readinessProbe;
    expect(schemaProblems(tools, [api])).toEqual(
      KUBERNETES_VERSIONS.map((version) => expect.stringMatching(new RegExp(`version ${version.replace(/\.0$/, '')}: .*'readinesProbe' was unexpected`))),
    );
    // ... and in the custom ones, each under its CRD (the Components: production lists both).
    const custom: Array<[string, keyof typeof goModules.SCHEMA_MODULES, (m: Manifest) => void]> = [
      [POD_MONITOR, 'podMonitor', (m) => void (m.spec.podMetricsEndpoints[0].intervall = '30s')],
      [PROMETHEUS_RULE, 'prometheusRule', (m) => void (m.spec.groups[0].rules[0].expresion = 'up')],
    ];
    for (const [kind, crd, misspell] of custom) {
      const validate = crdValidator(goModules.goModuleFile(goModules.SCHEMA_MODULES[crd]), 'v1');
      const resources = production.filter((m) => `${m.apiVersion}/${m.kind}` === kind);
      expect([kind, resources.length]).toEqual([kind, 1]);
      expect(validate(resources[0]!)).toEqual([]);
      const misspelt = structuredClone(resources[0]!);
      misspell(misspelt);
      expect([kind, validate(misspelt).length > 0]).toEqual([kind, true]);
      // A Component: the base applies on a cluster without the Prometheus Operator.
      expect(base.filter((m) => `${m.apiVersion}/${m.kind}` === kind)).toEqual([]);
    }
  });

  it('list every file of the base in its kustomization, and hold no Secret but the examples', () => {
    const kustomization = parse(fs.readFileSync(path.join(BASE, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
      patches: { path: string }[];
      configMapGenerator: { envs: string[] }[];
    };
    const listed = [...kustomization.resources, ...kustomization.patches.map((p) => p.path), ...kustomization.configMapGenerator.flatMap((g) => g.envs)];
    const files = fs.readdirSync(BASE).filter((file) => file !== 'kustomization.yaml' && !file.endsWith('.example.yaml'));
    expect([...listed].sort()).toEqual(files.sort());
    for (const manifests of [base, production, temporal]) expect(ofKind(manifests, 'Secret')).toEqual([]);
  });

  it('migrate in an init container of every pod of the service, before its process, with the owner role there alone', () => {
    for (const manifests of [base, production]) {
      // Nothing to delete and wait for by hand: no Job, whose template could not change on apply.
      expect(ofKind(manifests, 'Job')).toEqual([]);
      expect(ofKind(manifests, 'Deployment').map((d) => d.metadata.name)).toEqual(APP);
      for (const deployment of ofKind(manifests, 'Deployment')) {
        const { spec } = podOf(deployment);
        const [migrate, ...others] = spec.initContainers as Record<string, any>[];
        expect([id(deployment), others, migrate.command]).toEqual([id(deployment), [], ['node', 'dist/db/migrate-cli.js']]);
        expect(migrate.image).toBe(spec.containers[0].image);
        const ownerUrl = (c: Record<string, any>) => JSON.stringify(c).includes('industrial-ops-migration');
        expect(ownerUrl(migrate)).toBe(true);
        for (const c of spec.containers) expect([c.name, ownerUrl(c)]).toEqual([c.name, false]);
      }
    }
  });

  it('name the ConfigMap by its content, so that a change of config.env rolls every pod', () => {
    const nameIn = (manifests: Manifest[]) => ofKind(manifests, 'ConfigMap').find((m) => m.metadata.name.startsWith('industrial-ops-config-'))!.metadata.name;
    const referenced = (manifests: Manifest[]) =>
      ofKind(manifests, 'Deployment').flatMap((d) =>
        (podOf(d).spec.containers as { envFrom?: { configMapRef?: { name: string } }[] }[]).flatMap((c) =>
          (c.envFrom ?? []).flatMap((e) => (e.configMapRef ? [e.configMapRef.name] : [])),
        ),
      );
    expect(nameIn(base)).toMatch(/^industrial-ops-config-[a-z0-9]{10}$/);
    expect(new Set(referenced(base))).toEqual(new Set([nameIn(base)]));
    expect(referenced(base)).toHaveLength(APP.length);
    // One setting changed in a copy of the base: a new name, and both pod templates refer to it.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-base-'));
    try {
      fs.cpSync(BASE, copy, { recursive: true });
      const env = path.join(copy, 'config.env');
      fs.writeFileSync(env, fs.readFileSync(env, 'utf8').replace(/^LOG_LEVEL=.*$/m, 'LOG_LEVEL=debug'));
      const changed = render(tools, copy);
      expect(nameIn(changed)).not.toBe(nameIn(base));
      expect(new Set(referenced(changed))).toEqual(new Set([nameIn(changed)]));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('spread the replicas of each Deployment across nodes, and zones where there are', () => {
    for (const deployment of ofKind(production, 'Deployment')) {
      const { labels, spec } = podOf(deployment);
      const constraints = spec.topologySpreadConstraints as Record<string, any>[];
      expect([id(deployment), constraints.map((c) => [c.topologyKey, c.whenUnsatisfiable, c.maxSkew])]).toEqual([
        id(deployment),
        [
          ['kubernetes.io/hostname', 'DoNotSchedule', 1],
          ['topology.kubernetes.io/zone', 'ScheduleAnyway', 1],
        ],
      ]);
      for (const c of constraints) {
        // Counted over this Deployment's own pods, per ReplicaSet.
        expect(selects(c.labelSelector, labels)).toBe(true);
        expect(c.labelSelector.matchLabels['app.kubernetes.io/name']).toBe(deployment.metadata.name);
        expect(c.matchLabelKeys).toEqual(['pod-template-hash']);
      }
      expect(constraints[0]!.nodeTaintsPolicy).toBe('Honor');
    }
  });

  it('let traffic in on the process port only, and out to DNS, PostgreSQL, Temporal and the internet, never to internal addresses', () => {
    const [api, worker] = APP.map((name) => {
      const { labels, spec } = podOf(named(base, 'Deployment', name));
      const podPorts = Object.fromEntries((spec.containers[0].ports as { name: string; containerPort: number }[]).map((p) => [p.name, p.containerPort]));
      return { pod: labels, podPorts };
    }) as [{ pod: Record<string, string>; podPorts: Record<string, number> }, { pod: Record<string, string>; podPorts: Record<string, number> }];
    const policies = ofKind(base, 'NetworkPolicy');
    const anywhere = { ip: '198.51.100.7' };
    const ingress = (pod: typeof api, port: number) => allowed(policies, { ...pod, direction: 'Ingress', peer: anywhere, port });
    expect([ingress(api, 3000), ingress(api, 3001), ingress(api, 22)]).toEqual([true, false, false]);
    expect([ingress(worker, 3001), ingress(worker, 3000), ingress(worker, 22)]).toEqual([true, false, false]);

    for (const pod of [api, worker]) {
      const egress = (ip: string, port: number, protocol: 'TCP' | 'UDP' = 'TCP') => allowed(policies, { ...pod, direction: 'Egress', peer: { ip }, port, protocol });
      // DNS, PostgreSQL and Temporal wherever the cluster has them.
      expect([egress('10.96.0.10', 53, 'UDP'), egress('10.96.0.10', 53), egress('10.20.0.5', 5432), egress('10.100.3.4', 7233)]).toEqual([true, true, true, true]);
      // HTTPS (S3, webhooks, WhatsApp, the LLM) and SMTP to public addresses, IPv4 and IPv6.
      for (const port of [443, 25, 465, 587, 2525]) expect([port, egress('203.0.113.10', port), egress('2a00:1450:4001::1', port)]).toEqual([port, true, true]);
      // Never another port, and never a cluster-internal, private, shared or link-local address.
      expect([egress('203.0.113.10', 80), egress('203.0.113.10', 22), egress('203.0.113.10', 6379)]).toEqual([false, false, false]);
      for (const ip of ['10.0.0.1', '172.16.5.5', '192.168.1.1', '100.64.0.1', '169.254.169.254', '127.0.0.1', 'fd00::1', 'fe80::1', '::1'])
        expect([ip, egress(ip, 443), egress(ip, 587)]).toEqual([ip, false, false]);
    }

    // The production overlay narrows PostgreSQL to its subnet and Temporal to its namespace.
    const narrowed = ofKind(production, 'NetworkPolicy');
    const out = (peer: { ip?: string; namespaceLabels?: Record<string, string> }, port: number) => allowed(narrowed, { ...worker, direction: 'Egress', peer, port });
    expect([out({ ip: '10.20.0.5' }, 5432), out({ ip: '10.30.0.5' }, 5432)]).toEqual([true, false]);
    expect([out({ namespaceLabels: { 'kubernetes.io/metadata.name': 'temporal' } }, 7233), out({ ip: '10.100.3.4' }, 7233)]).toEqual([true, false]);
  });

  it('autoscale the API from more replicas than its disruption budget keeps, with the replica count left to the autoscaler', () => {
    for (const manifests of [base, production]) {
      const [hpa] = ofKind(manifests, 'HorizontalPodAutoscaler');
      const api = named(manifests, 'Deployment', 'industrial-ops-api');
      expect(hpa!.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: api.metadata.name });
      // An apply must not reset what the autoscaler chose.
      expect(api.spec.replicas).toBeUndefined();
      expect(hpa!.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa!.spec.maxReplicas).toBeGreaterThan(hpa!.spec.minReplicas);
      // CPU utilization is measured against the request.
      expect(hpa!.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
      expect(api.spec.template.spec.containers[0].resources.requests.cpu).toBeTruthy();
      const budget = named(manifests, 'PodDisruptionBudget', 'industrial-ops-api');
      expect(budget.spec.minAvailable).toBeLessThan(hpa!.spec.minReplicas);
    }
  });

  it('give each Deployment a PodDisruptionBudget over its pods', () => {
    for (const deployment of ofKind(production, 'Deployment')) {
      const covering = ofKind(production, 'PodDisruptionBudget').filter((b) => selects(b.spec.selector, podOf(deployment).labels));
      expect([id(deployment), covering.length]).toEqual([id(deployment), 1]);
    }
    expect(named(production, 'PodDisruptionBudget', 'industrial-ops-worker').spec.minAvailable).toBeLessThan(
      named(production, 'Deployment', 'industrial-ops-worker').spec.replicas,
    );
  });

  it("scrape every pod's /metrics through the PodMonitor, with the metrics token", () => {
    const [monitor] = production.filter((m) => `${m.apiVersion}/${m.kind}` === POD_MONITOR);
    for (const deployment of ofKind(production, 'Deployment')) {
      const { labels, spec } = podOf(deployment);
      expect(selects(monitor!.spec.selector, labels)).toBe(true);
      const portNames = (spec.containers[0].ports as { name: string }[]).map((p) => p.name);
      const endpoints = (monitor!.spec.podMetricsEndpoints as Record<string, any>[]).filter((e) => portNames.includes(e.port));
      expect([id(deployment), endpoints.map((e) => e.path)]).toEqual([id(deployment), ['/metrics']]);
      const credentials = endpoints[0]!.authorization.credentials as { name: string; key: string };
      expect([endpoints[0]!.authorization.type, secretKeys.get(credentials.name)]).toEqual(['Bearer', expect.arrayContaining([credentials.key])]);
      expect(credentials.key).toBe('METRICS_TOKEN');
    }
  });

  it('carry the recommended labels on every pod, the version being the image tag', () => {
    const overlays: [Manifest[], string | undefined][] = [
      [base, undefined],
      [production, 'industrial-ops-production'],
    ];
    for (const [manifests, instance] of overlays) {
      for (const deployment of ofKind(manifests, 'Deployment')) {
        const { labels, spec } = podOf(deployment);
        const tag = (spec.containers[0].image as string).split(':')[1];
        expect(labels).toMatchObject({
          'app.kubernetes.io/name': deployment.metadata.name,
          'app.kubernetes.io/component': deployment.metadata.labels!['app.kubernetes.io/component'],
          'app.kubernetes.io/part-of': 'industrial-ops',
          'app.kubernetes.io/managed-by': 'kustomize',
          'app.kubernetes.io/version': tag,
        });
        if (instance) expect(labels['app.kubernetes.io/instance']).toBe(instance);
      }
    }
    expect(new Set(production.filter((m) => m.kind !== 'Namespace').map((m) => m.metadata.namespace))).toEqual(new Set(['industrial-ops']));
  });

  it('run every container non-root, on a read-only root filesystem with /tmp in memory, no capabilities, seccomp and resources', () => {
    for (const workload of [...ofKind(production, 'Deployment'), ...ofKind(temporal, 'Deployment'), ...ofKind(temporal, 'Job')]) {
      const { spec, containers } = podOf(workload);
      expect([id(workload), spec.securityContext.runAsNonRoot, spec.securityContext.seccompProfile, spec.automountServiceAccountToken]).toEqual([
        id(workload),
        true,
        { type: 'RuntimeDefault' },
        false,
      ]);
      for (const c of containers) {
        expect([c.name, c.securityContext]).toEqual([c.name, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } }]);
        expect([c.name, c.resources.requests.cpu, c.resources.requests.memory, c.resources.limits.memory].every(Boolean)).toBe(true);
      }
    }
    for (const workload of ofKind(production, 'Deployment')) {
      const { spec, containers } = podOf(workload);
      const emptyDirs = new Set((spec.volumes as { name: string; emptyDir?: object }[]).filter((v) => v.emptyDir).map((v) => v.name));
      for (const c of containers) {
        const tmp = (c.volumeMounts as { name: string; mountPath: string }[]).find((m) => m.mountPath === '/tmp');
        expect([c.name, tmp && emptyDirs.has(tmp.name)]).toEqual([c.name, true]);
      }
    }
  });

  it('probe /livez for liveness and /readyz for readiness on the port the process listens on', () => {
    const config = configOf(base);
    const ports: Record<string, string> = { 'industrial-ops-api': config.API_PORT!, 'industrial-ops-worker': config.WORKER_HTTP_PORT! };
    for (const deployment of ofKind(base, 'Deployment')) {
      const [c] = deployment.spec.template.spec.containers;
      const port = c.ports.find((p: { name: string }) => p.name === c.readinessProbe.httpGet.port);
      expect([deployment.metadata.name, String(port?.containerPort)]).toEqual([deployment.metadata.name, ports[deployment.metadata.name]]);
      expect([c.livenessProbe.httpGet, c.readinessProbe.httpGet, c.startupProbe.httpGet]).toEqual([
        { path: '/livez', port: port.name },
        { path: '/readyz', port: port.name },
        { path: '/livez', port: port.name },
      ]);
    }
  });

  it("end a process whose loop stalls as `npm run up`'s supervisor does, never before the watchdog would", () => {
    const stallLimitS = Number(configOf(base).EVENT_LOOP_STALL_LIMIT_MS ?? DEFAULT_STALL_LIMIT_MS) / 1000;
    for (const deployment of ofKind(production, 'Deployment')) {
      const probe = podOf(deployment).spec.containers[0].livenessProbe as { periodSeconds: number; timeoutSeconds: number; failureThreshold: number };
      expect([id(deployment), probe.periodSeconds * 1000, probe.timeoutSeconds * 1000, probe.failureThreshold]).toEqual([
        id(deployment),
        supervisor.LIVENESS.intervalMs,
        supervisor.LIVENESS.timeoutMs,
        supervisor.LIVENESS.failures,
      ]);
      // A loop paused for less than the watchdog's limit is not ended: the misses need longer.
      expect((probe.failureThreshold - 1) * probe.periodSeconds + probe.timeoutSeconds).toBeGreaterThanOrEqual(stallLimitS);
      // A loop stuck for good is ended within 20 s where the watchdog could not end it.
      expect(probe.failureThreshold * probe.periodSeconds + probe.timeoutSeconds).toBeLessThanOrEqual(20);
    }
  });

  it('ask for what each pod holds idle and limit it to no less than its worst case', () => {
    for (const manifests of [base, production]) {
      const settings = podSettingsOf(configOf(manifests));
      for (const [name, role] of [
        ['industrial-ops-api', 'api'],
        ['industrial-ops-worker', 'worker'],
      ] as const) {
        const { resources } = named(manifests, 'Deployment', name).spec.template.spec.containers[0];
        const memory = podMemory(role, settings);
        const [request, limit] = [quantityMiB(resources.requests.memory), quantityMiB(resources.limits.memory)];
        expect([name, request >= memory.idleMiB, limit >= memory.worstCaseMiB, request <= limit]).toEqual([name, true, true, true]);
      }
    }
  });

  it('give the API its whole drain, and the worker its activities grace, before SIGKILL', () => {
    const config = configOf(base);
    const [api, worker] = APP.map((name) => named(base, 'Deployment', name));
    const drainMs = Number(config.API_SHUTDOWN_DELAY_MS) + Number(config.API_SHUTDOWN_GRACE_MS);
    expect(api!.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs);
    // A readiness failure must reach the endpoints within the delay: probe period x threshold.
    const probe = api!.spec.template.spec.containers[0].readinessProbe;
    expect(probe.periodSeconds * probe.failureThreshold * 1000).toBeLessThan(Number(config.API_SHUTDOWN_DELAY_MS));
    expect(worker!.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(msToNumber(WORKER_TUNING.shutdownGraceTime!));
  });

  it("configure Temporal with the variables Temporal's CLI and SDKs share, its TLS mounted where they are read, and keep secrets in Secrets with placeholders only", () => {
    const config = configOf(production);
    expect(config).toMatchObject({ TEMPORAL_ADDRESS: expect.any(String), TEMPORAL_NAMESPACE: expect.any(String) });
    const text = fs
      .readdirSync(BASE)
      .map((file) => fs.readFileSync(path.join(BASE, file), 'utf8'))
      .join('\n');
    // The project's former names, not Temporal's.
    expect(text).not.toMatch(/TEMPORAL_TLS_(CA|CERT|KEY)\b/);
    expect(text).toMatch(/TEMPORAL_TLS_CLIENT_CERT_PATH=\/etc\/temporal-tls\/tls.crt/);
    // Every container that gets the Temporal settings mounts the client certificate where they
    // point, as temporal-tls.example.yaml says; the migration, which never calls Temporal, neither.
    const tlsExample = fs.readFileSync(path.join(BASE, 'temporal-tls.example.yaml'), 'utf8');
    for (const deployment of ofKind(production, 'Deployment')) {
      const { spec, containers } = podOf(deployment);
      const tlsVolume = (spec.volumes as { name: string; secret?: { secretName: string } }[]).find((v) => v.secret?.secretName === 'industrial-ops-temporal-tls');
      for (const c of containers) {
        const getsTemporal = ((c.envFrom ?? []) as { configMapRef?: object }[]).some((e) => e.configMapRef);
        const mount = ((c.volumeMounts ?? []) as { name: string; mountPath: string }[]).find((m) => m.name === tlsVolume?.name);
        expect([id(deployment), c.name, mount?.mountPath]).toEqual([id(deployment), c.name, getsTemporal ? '/etc/temporal-tls' : undefined]);
      }
    }
    expect(tlsExample).toMatch(/mounted at\s+(#\s+)?\/etc\/temporal-tls in the API and the worker/);
    const secretData = new Map(examples.filter((s) => s.kind === 'Secret').map((s) => [s.metadata.name, s.stringData as Record<string, string>]));
    expect(secretData.get('industrial-ops-secrets')).toHaveProperty('TEMPORAL_API_KEY');
    for (const [name, data] of secretData)
      for (const [key, value] of Object.entries(data)) expect([name, key, value === '' || value.includes('PLACEHOLDER')]).toEqual([name, key, true]);
    for (const key of ['DATABASE_URL', 'JWT_SECRET', 'DATA_ENCRYPTION_KEY', 'S3_SECRET_KEY']) expect(Object.keys(config)).not.toContain(key);
  });

  it('refer only to Secrets and keys the examples define', () => {
    for (const workload of [...ofKind(production, 'Deployment'), ...ofKind(temporal, 'Deployment')]) {
      for (const c of podOf(workload).containers) {
        const whole = ((c.envFrom ?? []) as { secretRef?: { name: string } }[]).flatMap((e) => (e.secretRef ? [e.secretRef.name] : []));
        const keyed = ((c.env ?? []) as { valueFrom?: { secretKeyRef?: { name: string; key: string } } }[]).flatMap((e) =>
          e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : [],
        );
        for (const name of whole) expect([c.name, secretKeys.has(name)]).toEqual([c.name, true]);
        for (const ref of keyed) expect([c.name, secretKeys.get(ref.name)]).toEqual([c.name, expect.arrayContaining([ref.key])]);
      }
    }
  });
});

describe('the Temporal server example (deploy/k8s/temporal)', () => {
  const composeImages = () => {
    const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, { image?: string }> };
    return new Set(Object.values(compose.services).flatMap((s) => (s.image?.startsWith('temporalio/') ? [s.image] : [])));
  };

  it('runs the server image (not the dev server) of the version compose runs, on PostgreSQL, with the schema set up before it', () => {
    const server = named(temporal, 'Deployment', 'temporal');
    const { spec } = podOf(server);
    const [schema] = spec.initContainers as Record<string, any>[];
    const [container] = spec.containers as Record<string, any>[];
    expect(container.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(container.command).toBeUndefined(); // the image's entrypoint: `temporal-server start`, never `start-dev`
    expect(schema.args.join('\n')).toContain('update-schema');
    for (const image of [container.image, schema.image, podOf(named(temporal, 'Job', 'temporal-namespace')).spec.containers[0].image]) expect(composeImages()).toContain(image);
    const env = Object.fromEntries((container.env as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
    expect(env.DB).toBe('postgres12');
    expect(Number(env.NUM_HISTORY_SHARDS)).toBeGreaterThanOrEqual(512);
    expect(server.spec.strategy).toEqual({ type: 'Recreate' }); // two schema steps never at once
  });

  it('enables task queue fairness through the same dynamic config as compose', () => {
    expect(fs.readFileSync(path.join(TEMPORAL, 'dynamicconfig.yaml'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'infra', 'temporal', 'dynamicconfig.yaml'), 'utf8'));
    const server = named(temporal, 'Deployment', 'temporal');
    const { spec } = podOf(server);
    const container = spec.containers[0] as Record<string, any>;
    const file = (container.env as { name: string; value?: string }[]).find((e) => e.name === 'DYNAMIC_CONFIG_FILE_PATH')!.value!;
    const mount = (container.volumeMounts as { name: string; mountPath: string }[]).find((m) => file.startsWith(`${m.mountPath}/`))!;
    const volume = (spec.volumes as { name: string; configMap?: { name: string } }[]).find((v) => v.name === mount.name)!;
    const configMap = named(temporal, 'ConfigMap', volume.configMap!.name);
    const dynamicConfig = parse(configMap.data[path.basename(file)] as string) as Record<string, { value: unknown }[]>;
    expect(dynamicConfig['matching.enableFairness']).toEqual([{ value: true }]);
  });

  it("answers at the base's TEMPORAL_ADDRESS and creates its TEMPORAL_NAMESPACE", () => {
    const config = configOf(base);
    const [host, port] = config.TEMPORAL_ADDRESS!.split(':');
    const [service] = ofKind(temporal, 'Service');
    expect(`${service!.metadata.name}.${service!.metadata.namespace}.svc.cluster.local`).toBe(host);
    expect(service!.spec.ports.map((p: { port: number }) => String(p.port))).toEqual([port]);
    expect(selects({ matchLabels: service!.spec.selector }, podOf(named(temporal, 'Deployment', 'temporal')).labels)).toBe(true);
    const job = podOf(named(temporal, 'Job', 'temporal-namespace')).spec.containers[0] as { env: { name: string; value: string }[] };
    expect(job.env.find((e) => e.name === 'NAMESPACE')!.value).toBe(config.TEMPORAL_NAMESPACE);
  });
});
