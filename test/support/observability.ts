/**
 * What an on-call engineer opens, as the tests read it: the alert rules of the Compose Prometheus
 * (deploy/observability/prometheus/alerts.yml, also the PrometheusRule's source) and the Grafana
 * dashboards (deploy/observability/grafana/dashboards/), with every PromQL expression they hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const ROOT = path.resolve(__dirname, '..', '..');
export const OBSERVABILITY = path.join(ROOT, 'deploy', 'observability');
export const RULES_FILE = path.join(OBSERVABILITY, 'prometheus', 'alerts.yml');
export const DASHBOARDS = path.join(OBSERVABILITY, 'grafana', 'dashboards');

export interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

export function ruleGroups(): RuleGroup[] {
  return (parse(fs.readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] }).groups;
}

export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ refId: string; expr: string; datasource?: { type: string; uid: string } }>;
  panels?: Panel[];
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: Array<{ name: string; type: string; query?: string }> };
  panels: Panel[];
}

/** Every dashboard file, by its name. */
export function dashboards(): Array<[file: string, dashboard: Dashboard]> {
  return fs
    .readdirSync(DASHBOARDS)
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, JSON.parse(fs.readFileSync(path.join(DASHBOARDS, name), 'utf8')) as Dashboard]);
}

/** A panel and those of its (collapsed) rows. */
export const allPanels = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);

/** Every PromQL expression of the rules and the dashboards, named by where it is. */
export function expressions(): Array<[where: string, expr: string]> {
  const rules = ruleGroups().flatMap((group) => group.rules.map((rule) => [`rule ${rule.alert ?? rule.record}`, rule.expr] as [string, string]));
  const panels = dashboards().flatMap(([file, dashboard]) =>
    allPanels(dashboard.panels).flatMap((panel) => (panel.targets ?? []).map((t) => [`${file}: panel "${panel.title}" ${t.refId}`, t.expr] as [string, string])),
  );
  return [...rules, ...panels];
}
