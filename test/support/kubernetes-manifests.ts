/**
 * Kubernetes manifests as the cluster would receive them: a kustomization rendered by the pinned
 * kustomize (`kubectl apply -k` embeds the same), validated strictly against the Kubernetes JSON
 * schemas (PyPI kubernetes-validate, the `-strict` variants: an unknown field is an error, as with
 * `kubectl apply --validate=strict`), and custom resources against their CRD's openAPIV3Schema.
 * The tools come from scripts/lib/tools.cjs (fetched once into .tools/, as `npm test` does).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { parseAllDocuments, stringify } from 'yaml';
import toolsLib = require('../../scripts/lib/tools.cjs');

export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [key: string]: any };

export const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The releases validated against: the oldest and the newest minor that Kubernetes supported when
 * the pinned kubernetes-validate was published (upstream supports the last three).
 */
export const KUBERNETES_VERSIONS = ['1.35.0', '1.37.0'];

export interface Tools {
  kustomize: string;
  kubernetesValidate: string;
}

/** Fetches (once) and returns the tools; slow only the first time on a machine. */
export async function kubernetesTools(): Promise<Tools> {
  const log = () => {};
  return {
    kustomize: await toolsLib.ensureKustomize({ root: ROOT, log }),
    kubernetesValidate: await toolsLib.ensureKubernetesValidate({ root: ROOT, log }),
  };
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

export function loadFile(file: string): Manifest[] {
  return parseManifests(fs.readFileSync(file, 'utf8'));
}

/** `kustomize build dir`, parsed; a build error fails with kustomize's own words. */
export function render(tools: Tools, dir: string): Manifest[] {
  const result = spawnSync(tools.kustomize, ['build', dir], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`kustomize build ${path.relative(ROOT, dir)} failed: ${result.stderr || result.error?.message}`);
  return parseManifests(result.stdout);
}

/**
 * The schema errors of each manifest, as `kind/name: message` lines, for every release of
 * KUBERNETES_VERSIONS. A kind the schemas do not know is an error too, unless it is in `custom`
 * (validated against its CRD instead).
 */
export function schemaProblems(tools: Tools, manifests: Manifest[], custom: string[] = []): string[] {
  const known = manifests.filter((m) => !custom.includes(`${m.apiVersion}/${m.kind}`));
  if (!known.length) return [];
  const versions = KUBERNETES_VERSIONS.flatMap((version) => ['-k', version]);
  // A file, not stdin: the tool reads its input once per version.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-validate-'));
  const file = path.join(dir, 'manifests.yaml');
  fs.writeFileSync(file, known.map((m) => stringify(m)).join('---\n'));
  const result = spawnSync(tools.kubernetesValidate, ['--strict', '--quiet', ...versions, file], { encoding: 'utf8', timeout: 120_000 });
  fs.rmSync(dir, { recursive: true, force: true });
  if (result.error) throw result.error;
  const lines = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => /^(ERROR|WARN|FATAL)/.test(line));
  if (result.status !== 0 && !lines.length) throw new Error(`kubernetes-validate exited ${result.status}: ${result.stderr}`);
  return lines;
}

/**
 * A CRD's schema as the API server's strict field validation applies it: an unknown field is an
 * error where the schema lists properties and neither preserves unknown fields nor declares
 * additionalProperties. Go's case-insensitive flag `(?i)` has no place in a JavaScript pattern:
 * those match case-sensitively.
 */
function strictCrdSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictCrdSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // `properties` maps names to schemas: a property may be named like a keyword.
    if (key === 'properties') node[key] = Object.fromEntries(Object.entries(value as object).map(([name, property]) => [name, strictCrdSchema(property)]));
    else if (key === 'pattern' && typeof value === 'string') node[key] = value.replace('(?i)', '');
    else node[key] = strictCrdSchema(value);
  }
  const open = node['x-kubernetes-preserve-unknown-fields'] === true || 'additionalProperties' in node;
  return node.properties && !open ? { ...node, additionalProperties: false } : node;
}

/** A validator of one custom resource version, from its CustomResourceDefinition's YAML. */
export function crdValidator(crdFile: string, version: string) {
  const [crd] = loadFile(crdFile);
  const served = (crd!.spec.versions as { name: string; schema: { openAPIV3Schema: Record<string, any> } }[]).find((v) => v.name === version);
  if (!served) throw new Error(`${crdFile} serves no version ${version}`);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile(strictCrdSchema(served.schema.openAPIV3Schema) as object);
  return (manifest: Manifest): string[] => {
    const name = `${manifest.kind}/${manifest.metadata.name}`;
    return validate(manifest) ? [] : validate.errors!.map((e) => `${name}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
}

/** The pod template of a workload, with its containers (init containers included) in one list. */
export function podOf(workload: Manifest) {
  const spec = workload.spec.template.spec;
  return {
    labels: workload.spec.template.metadata.labels as Record<string, string>,
    spec,
    containers: [...(spec.initContainers ?? []), ...spec.containers] as Record<string, any>[],
  };
}
