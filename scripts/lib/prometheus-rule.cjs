// The alert rules of deploy/observability/prometheus/alerts.yml (the file the Compose Prometheus
// loads) as a PrometheusRule for the Prometheus Operator (deploy/k8s/components/prometheus-rules/):
// one source, the manifest generated from it. `npm run observability:rules` writes it; a test fails
// when the committed manifest is not what this renders.
const fs = require('node:fs');
const path = require('node:path');
const { parse, stringify } = require('yaml');

const ROOT = path.resolve(__dirname, '..', '..');
const RULES_FILE = path.join(ROOT, 'deploy', 'observability', 'prometheus', 'alerts.yml');
const MANIFEST_FILE = path.join(ROOT, 'deploy', 'k8s', 'components', 'prometheus-rules', 'prometheus-rule.yaml');

const HEADER = `# Generated from deploy/observability/prometheus/alerts.yml by \`npm run observability:rules\`:
# edit that file, not this one. The alert rules with their runbooks, for the Prometheus Operator;
# a Prometheus whose ruleSelector wants labels gets them from your overlay.
`;

/** The manifest's text for the rules file's text. */
function renderPrometheusRule(rulesText) {
  const { groups } = parse(rulesText);
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'industrial-ops', labels: { 'app.kubernetes.io/part-of': 'industrial-ops' } },
    spec: { groups },
  };
  return HEADER + stringify(manifest, { lineWidth: 0 });
}

function writePrometheusRule() {
  fs.writeFileSync(MANIFEST_FILE, renderPrometheusRule(fs.readFileSync(RULES_FILE, 'utf8')));
  return MANIFEST_FILE;
}

module.exports = { RULES_FILE, MANIFEST_FILE, renderPrometheusRule, writePrometheusRule };
