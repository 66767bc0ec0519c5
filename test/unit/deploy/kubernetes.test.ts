/**
 * deploy/k8s cannot rot unseen: every manifest (the Kustomize base and the Secret examples) is
 * validated against the Kubernetes OpenAPI schema of a pinned release (k8s.io/kubernetes,
 * api/openapi-spec, through the Go module proxy), strictly as kubeconform's strict mode does (an
 * unknown field is an error), and held to the project's rules: probes on the process's own
 * endpoints, a hardened security context, a PodDisruptionBudget per Deployment, a drain that fits
 * the termination grace, Temporal's shared variable names, placeholders only in the Secrets.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { msToNumber } from '@temporalio/common/lib/time';
import { parseAllDocuments } from 'yaml';
import goModules = require('../../../scripts/lib/go-module-file.cjs');
import { WORKER_TUNING } from '../../../workers/options';

const DIR = path.resolve(__dirname, '..', '..', '..', 'deploy', 'k8s');

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: any };
const load = (file: string): Manifest[] => parseAllDocuments(fs.readFileSync(path.join(DIR, file), 'utf8')).map((doc) => doc.toJS() as Manifest);

const kustomization = load('kustomization.yaml')[0] as unknown as { resources: string[]; images: { name: string }[] };
const EXAMPLES = fs.readdirSync(DIR).filter((file) => file.endsWith('.example.yaml'));
const base = kustomization.resources.flatMap(load);
const secrets = EXAMPLES.flatMap(load);
const all = [...base, ...secrets];
const ofKind = (kind: string) => base.filter((m) => m.kind === kind);
const workloads = [...ofKind('Deployment'), ...ofKind('Job')];
const config = ofKind('ConfigMap').find((m) => m.metadata.name === 'industrial-ops-config')!.data as Record<string, string>;

interface Definition {
  type?: string;
  format?: string;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  [key: string]: unknown;
}

/** The OpenAPI definitions as a JSON schema: closed objects (strict), and the two scalar types YAML writes as numbers too. */
function kubernetesSchema(): Record<string, Definition> {
  const swagger = JSON.parse(fs.readFileSync(goModules.goModuleFile(goModules.SCHEMA_MODULES.kubernetes), 'utf8')) as { definitions: Record<string, Definition> };
  const definitions = swagger.definitions;
  for (const definition of Object.values(definitions)) {
    if (definition.properties && definition.additionalProperties === undefined) definition.additionalProperties = false;
  }
  definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] = { type: ['string', 'integer'] as unknown as string };
  definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'] = { type: ['string', 'number'] as unknown as string };
  return definitions;
}

const definitions = kubernetesSchema();
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, allowUnionTypes: true });
ajv.addSchema({ $id: 'k8s', definitions });

function validatorFor(apiVersion: string, kind: string) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const name = Object.keys(definitions).find((key) =>
    definitions[key]!['x-kubernetes-group-version-kind']?.some((gvk) => gvk.group === group && gvk.version === version && gvk.kind === kind),
  );
  if (!name) throw new Error(`the Kubernetes schema has no ${apiVersion} ${kind}`);
  return ajv.getSchema(`k8s#/definitions/${name}`)!;
}

function problems(manifest: Manifest): unknown[] {
  const validate = validatorFor(manifest.apiVersion, manifest.kind);
  return validate(manifest) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

describe('the Kubernetes manifests', () => {
  it('are valid, strictly, under the Kubernetes OpenAPI schema', () => {
    expect(all.length).toBeGreaterThan(8);
    for (const manifest of all) expect([`${manifest.kind}/${manifest.metadata.name}`, problems(manifest)]).toEqual([`${manifest.kind}/${manifest.metadata.name}`, []]);
    // A misspelt field is refused, as the API server would refuse it.
    const api = structuredClone(ofKind('Deployment')[0]!);
    api.spec.template.spec.containers[0].readinesProbe = api.spec.template.spec.containers[0].readinessProbe;
    expect(problems(api)).not.toEqual([]);
  });

  it('render with Kustomize where kubectl is installed, into manifests as valid', () => {
    const render = spawnSync('kubectl', ['kustomize', DIR], { encoding: 'utf8', timeout: 60_000 });
    if (render.error) return; // no kubectl here: the base has no patches, and each file is checked above
    expect(render.stderr).toBe('');
    const rendered = parseAllDocuments(render.stdout).map((doc) => doc.toJS() as Manifest);
    expect(rendered.length).toBe(base.length);
    for (const manifest of rendered) expect([`${manifest.kind}/${manifest.metadata.name}`, problems(manifest)]).toEqual([`${manifest.kind}/${manifest.metadata.name}`, []]);
  });

  it('list every manifest of the folder in the Kustomization, the Secret examples apart', () => {
    const files = fs.readdirSync(DIR).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml' && !EXAMPLES.includes(file));
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(base.filter((m) => m.kind === 'Secret')).toEqual([]);
    for (const w of workloads) for (const c of w.spec.template.spec.containers) expect(kustomization.images.map((i) => i.name)).toContain(c.image);
  });

  it('give each Deployment a PodDisruptionBudget over its pods', () => {
    const budgets = ofKind('PodDisruptionBudget');
    for (const deployment of ofKind('Deployment')) {
      const labels = deployment.spec.template.metadata.labels as Record<string, string>;
      const covering = budgets.filter((b) => Object.entries(b.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v));
      expect([deployment.metadata.name, covering.length]).toEqual([deployment.metadata.name, 1]);
      expect(covering[0]!.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    }
  });

  it('run every container non-root, on a read-only root filesystem with /tmp in memory, no capabilities, seccomp and resources', () => {
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      expect([workload.metadata.name, pod.securityContext.runAsNonRoot, pod.securityContext.seccompProfile, pod.automountServiceAccountToken]).toEqual([
        workload.metadata.name,
        true,
        { type: 'RuntimeDefault' },
        false,
      ]);
      const emptyDirs = new Set((pod.volumes as { name: string; emptyDir?: object }[]).filter((v) => v.emptyDir).map((v) => v.name));
      for (const c of pod.containers) {
        expect([c.name, c.securityContext]).toEqual([c.name, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } }]);
        const tmp = (c.volumeMounts as { name: string; mountPath: string }[]).find((m) => m.mountPath === '/tmp');
        expect([c.name, tmp && emptyDirs.has(tmp.name)]).toEqual([c.name, true]);
        expect([c.name, c.resources.requests.cpu, c.resources.requests.memory, c.resources.limits.memory].every(Boolean)).toBe(true);
      }
    }
  });

  it('probe /livez for liveness and /readyz for readiness on the port the process listens on', () => {
    const ports: Record<string, string> = { 'industrial-ops-api': config.API_PORT!, 'industrial-ops-worker': config.WORKER_HTTP_PORT! };
    for (const deployment of ofKind('Deployment')) {
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

  it('give the API its whole drain, and the worker its activities grace, before SIGKILL', () => {
    const [api, worker] = ['industrial-ops-api', 'industrial-ops-worker'].map((name) => ofKind('Deployment').find((d) => d.metadata.name === name)!);
    const drainMs = Number(config.API_SHUTDOWN_DELAY_MS) + Number(config.API_SHUTDOWN_GRACE_MS);
    expect(api!.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs);
    // A readiness failure must reach the endpoints within the delay: probe period x threshold.
    const probe = api!.spec.template.spec.containers[0].readinessProbe;
    expect(probe.periodSeconds * probe.failureThreshold * 1000).toBeLessThan(Number(config.API_SHUTDOWN_DELAY_MS));
    expect(worker!.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(msToNumber(WORKER_TUNING.shutdownGraceTime!));
  });

  it("configure Temporal with the variables Temporal's CLI and SDKs share, and keep secrets in Secrets with placeholders only", () => {
    expect(config).toMatchObject({ TEMPORAL_ADDRESS: expect.any(String), TEMPORAL_NAMESPACE: expect.any(String) });
    const text = fs
      .readdirSync(DIR, { recursive: true, encoding: 'utf8' })
      .filter((file) => fs.statSync(path.join(DIR, file)).isFile())
      .map((file) => fs.readFileSync(path.join(DIR, file), 'utf8'))
      .join('\n');
    // The project's former names, not Temporal's.
    expect(text).not.toMatch(/TEMPORAL_TLS_(CA|CERT|KEY)\b/);
    expect(text).toMatch(/TEMPORAL_TLS_CLIENT_CERT_PATH/);
    const secretData = new Map(secrets.map((s) => [s.metadata.name, s.stringData as Record<string, string>]));
    expect(secretData.get('industrial-ops-secrets')).toHaveProperty('TEMPORAL_API_KEY');
    for (const [name, data] of secretData)
      for (const [key, value] of Object.entries(data)) expect([name, key, value === '' || value.includes('PLACEHOLDER')]).toEqual([name, key, true]);
    for (const key of ['DATABASE_URL', 'JWT_SECRET', 'DATA_ENCRYPTION_KEY', 'S3_SECRET_KEY']) expect(Object.keys(config)).not.toContain(key);
  });

  it('refer only to Secrets and keys the examples define, and give the owner URL to the migration Job alone', () => {
    const secretKeys = new Map(secrets.map((s) => [s.metadata.name, Object.keys(s.stringData as object)]));
    for (const workload of workloads) {
      for (const c of workload.spec.template.spec.containers) {
        const whole = ((c.envFrom ?? []) as { secretRef?: { name: string } }[]).flatMap((e) => (e.secretRef ? [e.secretRef.name] : []));
        const keyed = ((c.env ?? []) as { valueFrom?: { secretKeyRef?: { name: string; key: string } } }[]).flatMap((e) =>
          e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : [],
        );
        for (const name of whole) expect(secretKeys.has(name)).toBe(true);
        for (const ref of keyed) expect(secretKeys.get(ref.name)).toContain(ref.key);
        const migrationSecret = [...whole, ...keyed.map((r) => r.name)].includes('industrial-ops-migration');
        expect([workload.metadata.name, migrationSecret]).toEqual([workload.metadata.name, workload.kind === 'Job']);
      }
    }
  });
});
