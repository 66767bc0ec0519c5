/**
 * The alert rules, the dashboards and their wiring hold together without a stack: every rule has
 * a valid expression (the Prometheus project's PromQL grammar), a duration, a severity and a
 * runbook; the PrometheusRule is the rules file, valid under the Prometheus Operator's CRD; every
 * dashboard panel sits on the grid, reads the provisioned data source and has valid queries; the
 * Compose Prometheus scrapes every API and worker with the metrics token and loads the rules,
 * Grafana loads the dashboards, both on loopback only. That the metric names exist:
 * test/api/dashboards-and-alerts.test.ts. (promtool is not built here: `go install` of its module
 * fetches every service-discovery SDK and did not finish in 30 minutes on 2 cores.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import goModules = require('../../../scripts/lib/go-module-file.cjs');
import prometheusRule = require('../../../scripts/lib/prometheus-rule.cjs');
import { crdValidator, type Manifest } from '../../support/kubernetes-manifests';
import { allPanels, dashboards, expressions, OBSERVABILITY, ROOT, RULES_FILE, ruleGroups } from '../../support/observability';
import { parsePromql } from '../../support/promql';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

describe('the alert rules', () => {
  const groups = ruleGroups();
  const rules = groups.flatMap((g) => g.rules);

  it('cover what an on-call engineer must hear of, each with a severity, a summary and a runbook', () => {
    expect(new Set(groups.map((g) => g.name)).size).toBe(groups.length);
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules) {
      expect([rule.alert, typeof rule.alert, rule.labels?.severity]).toEqual([rule.alert, 'string', expect.stringMatching(/^(info|warning|critical)$/)]);
      if (rule.for !== undefined) expect([rule.alert, rule.for]).toEqual([rule.alert, expect.stringMatching(DURATION)]);
      expect([rule.alert, (rule.annotations?.summary ?? '').length > 10]).toEqual([rule.alert, true]);
      expect([rule.alert, (rule.annotations?.runbook ?? '').length > 80]).toEqual([rule.alert, true]);
      expect(Object.keys(rule).filter((key) => !['alert', 'expr', 'for', 'labels', 'annotations'].includes(key))).toEqual([]);
    }
    // The situations the service's operators asked for, each by the metrics that show it.
    const selecting = (metric: string) => rules.filter((r) => parsePromql(r.expr).metricNames.includes(metric)).map((r) => r.alert);
    for (const metric of [
      'webhook_delivery_attempts_total',
      'webhooks_by_status',
      'outbox_oldest_pending_seconds',
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_activity_schedule_to_start_latency_bucket',
      'temporal_workflow_task_execution_failed_total',
      'webhook_circuit_breaker_opens_total',
      'db_pool_acquires_pending',
      'temporal_worker_task_slots_available',
      'process_start_time_seconds',
      'webhook_parked_deliveries',
      'webhook_parked_oldest_seconds',
      'webhook_parked_tenants_at_limit',
      'content_sandbox_replaced',
      'content_sandbox_queued',
    ]) {
      expect([metric, selecting(metric).length > 0]).toEqual([metric, true]);
    }
  });

  it('and the dashboards hold PromQL that parses', () => {
    const problems = expressions().flatMap(([where, expr]) => parsePromql(expr).errors.map((e) => `${where}: ${e}`));
    expect(problems).toEqual([]);
    // The grammar does refuse what Prometheus would.
    expect(parsePromql('sum(rate(http_errors_total[5m]) > ').errors).not.toEqual([]);
    expect(parsePromql('rate(http_errors_total[5m]').errors).not.toEqual([]);
  });

  it('are, as a PrometheusRule, what `npm run observability:rules` makes of the file, valid under its CRD', () => {
    const committed = fs.readFileSync(prometheusRule.MANIFEST_FILE, 'utf8');
    expect(committed).toBe(prometheusRule.renderPrometheusRule(fs.readFileSync(RULES_FILE, 'utf8')));
    const manifest = parse(committed) as Manifest;
    expect(manifest.spec.groups).toEqual(ruleGroups());
    const kustomization = parse(read('deploy/k8s/components/prometheus-rules/kustomization.yaml')) as { kind: string; resources: string[] };
    expect(kustomization).toMatchObject({ kind: 'Component', resources: [path.basename(prometheusRule.MANIFEST_FILE)] });

    const validate = crdValidator(goModules.goModuleFile(goModules.SCHEMA_MODULES.prometheusRule), 'v1');
    expect(validate(manifest)).toEqual([]);
    const misspelt = structuredClone(manifest);
    misspelt.spec.groups[0].rules[0].expresion = 'up';
    expect(validate(misspelt)).not.toEqual([]);
  });
});

describe('the dashboards', () => {
  const files = dashboards();

  it('are Grafana dashboards on the provisioned data source, their panels on the grid', () => {
    expect(files.map(([file]) => file)).toContain('industrial-ops.json');
    expect(new Set(files.map(([, d]) => d.uid)).size).toBe(files.length);
    for (const [file, dashboard] of files) {
      expect([file, typeof dashboard.title, dashboard.schemaVersion >= 39]).toEqual([file, 'string', true]);
      expect(dashboard.templating.list).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' })]));
      const panels = allPanels(dashboard.panels);
      expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
      const cells = new Set<string>();
      for (const panel of panels) {
        const { x, y, w, h } = panel.gridPos;
        expect([file, panel.title, x >= 0 && w > 0 && h > 0 && x + w <= 24]).toEqual([file, panel.title, true]);
        // No two panels overlap.
        for (let col = x; col < x + w; col++)
          for (let row = y; row < y + h; row++) {
            expect([file, panel.title, cells.has(`${col},${row}`)]).toEqual([file, panel.title, false]);
            cells.add(`${col},${row}`);
          }
        if (panel.type === 'row') continue;
        expect([file, panel.title, panel.datasource]).toEqual([file, panel.title, { type: 'prometheus', uid: '${datasource}' }]);
        const targets = panel.targets ?? [];
        expect([file, panel.title, targets.length > 0, new Set(targets.map((t) => t.refId)).size === targets.length]).toEqual([file, panel.title, true, true]);
      }
    }
  });
});

describe('in docker-compose.yml', () => {
  interface Service {
    image?: string;
    ports?: string[];
    volumes?: string[];
    secrets?: string[];
    environment?: Record<string, string>;
    depends_on?: Record<string, { condition: string }>;
  }
  const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service>; secrets: Record<string, { environment?: string }> };
  const { prometheus, grafana } = compose.services;
  /** The host file a service mounts at `target`. */
  const mounted = (service: Service, target: string) => service.volumes?.map((v) => v.split(':')).find(([, to]) => to === target)?.[0];

  it('Prometheus scrapes every API and worker replica with the metrics token and loads the rules', () => {
    expect(prometheus!.ports).toEqual(['127.0.0.1:9090:9090']);
    const configFile = mounted(prometheus!, '/etc/prometheus/prometheus.yml')!;
    expect(path.resolve(ROOT, configFile)).toBe(path.join(OBSERVABILITY, 'prometheus', 'prometheus.yml'));
    const config = parse(read(configFile)) as {
      rule_files: string[];
      scrape_configs: Array<{
        job_name: string;
        metrics_path: string;
        authorization: { type: string; credentials_file: string };
        dns_sd_configs: Array<{ names: string[]; port: number }>;
      }>;
    };
    // The rules file lands where the config looks for rules.
    const rulesTarget = prometheus!.volumes!.map((v) => v.split(':')).find(([from]) => path.resolve(ROOT, from!) === RULES_FILE)![1]!;
    expect(config.rule_files.some((glob) => path.dirname(glob) === path.dirname(rulesTarget) && rulesTarget.endsWith(path.extname(glob)))).toBe(true);
    // Each app service on the port it serves /metrics on, with the token Compose gives the app.
    const targets = config.scrape_configs.map((job) => [job.dns_sd_configs[0]!.names[0], job.dns_sd_configs[0]!.port]);
    expect(targets).toEqual([
      ['api', 3000],
      ['worker', 3001],
    ]);
    expect(compose.services.worker!.environment!.HEALTHCHECK_URL).toContain(':3001/');
    for (const job of config.scrape_configs) {
      expect([job.job_name, job.metrics_path, job.authorization.type]).toEqual([expect.stringContaining('industrial-ops'), '/metrics', 'Bearer']);
      const secret = path.basename(job.authorization.credentials_file);
      expect(job.authorization.credentials_file).toBe(`/run/secrets/${secret}`);
      expect(prometheus!.secrets).toContain(secret);
      expect(compose.secrets[secret]).toEqual({ environment: 'METRICS_TOKEN' });
    }
    expect(compose.services.api!.environment!.METRICS_TOKEN).toBe('${METRICS_TOKEN:?set METRICS_TOKEN}');
  });

  it('Grafana shows the dashboards from the provisioned Prometheus, behind its own password', () => {
    expect(grafana!.ports).toEqual(['127.0.0.1:3100:3000']);
    expect(grafana!.depends_on).toEqual({ prometheus: { condition: 'service_healthy' } });
    expect(grafana!.environment).toMatchObject({ GF_AUTH_ANONYMOUS_ENABLED: 'false', GF_SECURITY_ADMIN_PASSWORD: expect.stringMatching(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/) });
    const provisioning = mounted(grafana!, '/etc/grafana/provisioning')!;
    const datasources = parse(read(path.join(provisioning, 'datasources', 'prometheus.yml'))) as { datasources: Array<{ type: string; url: string; isDefault: boolean }> };
    expect(datasources.datasources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true })]);
    const providers = parse(read(path.join(provisioning, 'dashboards', 'industrial-ops.yml'))) as { providers: Array<{ options: { path: string } }> };
    const dashboardsTarget = providers.providers[0]!.options.path;
    expect(path.resolve(ROOT, mounted(grafana!, dashboardsTarget)!)).toBe(path.join(OBSERVABILITY, 'grafana', 'dashboards'));
    expect(grafana!.environment!.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).toBe(`${dashboardsTarget}/industrial-ops.json`);
  });
});
