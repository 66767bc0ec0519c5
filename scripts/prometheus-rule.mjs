// `npm run observability:rules`: writes deploy/k8s/components/prometheus-rules/prometheus-rule.yaml
// from deploy/observability/prometheus/alerts.yml (scripts/lib/prometheus-rule.cjs).
import path from 'node:path';
import lib from './lib/prometheus-rule.cjs';

console.log(`wrote ${path.relative(process.cwd(), lib.writePrometheusRule())}`);
