// A file of a Go module at a pinned version, from the Go module proxy through `go mod download`
// (Go's own module cache keeps it: fetched once, then a fast local answer). For the schemas the
// deployment checks validate against (test/unit/deploy): the Compose specification's schema
// (compose-go) and the Prometheus Operator's PodMonitor and PrometheusRule CRDs (their openAPIV3Schema). The built-in
// Kubernetes kinds are validated with PyPI kubernetes-validate's schemas (scripts/lib/tools.cjs).
// Node built-ins only.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The Prometheus Operator release whose CRDs the custom resources are checked against (one pin for all of them). */
const PROMETHEUS_OPERATOR = { module: 'github.com/prometheus-operator/prometheus-operator', version: 'v0.85.0' };
const PROMETHEUS_OPERATOR_CRDS = 'example/prometheus-operator-crd';

const SCHEMA_MODULES = {
  compose: { module: 'github.com/compose-spec/compose-go/v2', version: 'v2.16.2', file: 'schema/compose-spec.json' },
  podMonitor: { ...PROMETHEUS_OPERATOR, file: `${PROMETHEUS_OPERATOR_CRDS}/monitoring.coreos.com_podmonitors.yaml` },
  prometheusRule: { ...PROMETHEUS_OPERATOR, file: `${PROMETHEUS_OPERATOR_CRDS}/monitoring.coreos.com_prometheusrules.yaml` },
};

/**
 * @param {{ module: string, version: string, file: string }} pin
 * @returns {string} the absolute path of the file in the module cache
 */
function goModuleFile({ module, version, file }) {
  const go = process.env.GO || 'go';
  // Outside any module, so no go.mod around the caller is read or changed.
  const result = spawnSync(go, ['mod', 'download', '-json', `${module}@${version}`], {
    cwd: os.tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    timeout: 300_000,
  });
  if (result.error) throw new Error(`go was not found (${result.error.message}): ${module}@${version} is fetched with \`go mod download\`. Install Go (https://go.dev/dl).`);
  let info = null;
  try {
    info = JSON.parse(result.stdout);
  } catch {
    // reported below with go's own words
  }
  if (result.status !== 0 || !info?.Dir) throw new Error(`go mod download ${module}@${version} failed: ${info?.Error ?? result.stderr.trim()}`);
  const target = path.join(info.Dir, file);
  if (!fs.existsSync(target)) throw new Error(`${module}@${version} has no ${file}`);
  return target;
}

module.exports = { goModuleFile, SCHEMA_MODULES };
