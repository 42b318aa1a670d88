// Protects what pages an SRE: the alert rules load in Prometheus and fire on the failures they name (promtool), each has a runbook, and the dashboard parses and queries only metrics (the e2e suite checks they are exported).
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRecordingRule, metricNames, queriedMetrics, readDashboard, readRules } from './support/promql.js';
import { onPath, root } from './support/deployFiles.js';

const rules = readRules(root);
const alerts = rules.groups.flatMap((group) => group.rules.filter((rule) => rule.alert));
const observability = join(root, 'deploy/observability');

describe('the PromQL metric-name extractor', () => {
  it('when an expression aggregates, filters and does arithmetic, then only the metric names are kept', () => {
    expect(
      metricNames('histogram_quantile(0.99, sum by (le, consumer) (rate(events_lag_ms_bucket{consumer="gateway_credentials",le!~"1|2"}[10m]))) > 2000'),
    ).toEqual(['events_lag_ms_bucket']);
    expect(metricNames('max by (consumer) (a_total) + on(consumer) group_left max without (pod) (b_gauge) or vector(0)')).toEqual(['a_total', 'b_gauge']);
    expect(metricNames('esim:api_error_ratio:rate1h > (14.4 * 0.001) and min_over_time(db_pool_waiting_requests[5m]) > 0')).toEqual([
      'esim:api_error_ratio:rate1h',
      'db_pool_waiting_requests',
    ]);
    expect(isRecordingRule('esim:api_error_ratio:rate1h')).toBe(true);
  });
});

describe('alert rules (deploy/observability/alerts.yml)', () => {
  it('when an SLO of the issue is listed, then an alert protects it', () => {
    const names = alerts.map((rule) => rule.alert);
    for (const name of ['ApiAvailabilityFastBurn', 'ApiLatencyHigh', 'OrderProvisioningSlow', 'WebhookDeliveryLagHigh', 'KeyRevocationSlow', 'OutboxStuck', 'ConsumerLagHigh']) {
      expect(names).toContain(name);
    }
  });

  it.each(alerts.map((rule) => [rule.alert!, rule] as const))('when %s fires, then its runbook exists and says what to do', (name, rule) => {
    expect(rule.annotations?.runbook_url).toBe(`docs/runbooks/${name}.md`);
    expect(existsSync(join(root, rule.annotations!.runbook_url!)), rule.annotations!.runbook_url).toBe(true);
    const runbook = readFileSync(join(root, rule.annotations!.runbook_url!), 'utf8');
    expect(runbook.split('\n')[0]).toBe(`# ${name}`);
    for (const section of ['## What it means', '## Check', '## Fix']) expect(runbook, section).toContain(section);
    expect(rule.annotations?.summary).toBeTruthy();
  });

  it('when a runbook is in docs/runbooks, then an alert links it', () => {
    const runbooks = readdirSync(join(root, 'docs/runbooks')).filter((file) => file.endsWith('.md') && file !== 'README.md');
    expect(runbooks.sort()).toEqual(alerts.map((rule) => `${rule.alert}.md`).sort());
  });

  it.skipIf(!onPath('promtool'))('when promtool checks the rules, then they load, and each unit test fires exactly the alerts it expects', () => {
    expect(execFileSync('promtool', ['check', 'rules', 'alerts.yml'], { cwd: observability, encoding: 'utf8', timeout: 60_000 })).toContain('SUCCESS');
    expect(execFileSync('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: observability, encoding: 'utf8', timeout: 60_000 })).toContain('SUCCESS');
  });
});

describe('the Grafana dashboard', () => {
  const dashboard = readDashboard(root);

  it('when Grafana loads it, then it is JSON with a stable uid and every panel queries the selected Prometheus', () => {
    expect(dashboard.uid).toBe('esim-platform');
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(metricNames(target.expr ?? ''), panel.title).not.toEqual([]);
    }
  });

  it('when the rules and the dashboard query metrics, then each name is one a service defines or a recording rule of alerts.yml', () => {
    const recorded = new Set(rules.groups.flatMap((group) => group.rules.map((rule) => rule.record)));
    for (const name of metricNames(JSON.stringify(dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr))))) {
      if (isRecordingRule(name)) expect(recorded, name).toContain(name);
    }
    // The live check is test/e2e/metrics-catalog.test.ts; here, the names look like what our exporter writes.
    for (const name of queriedMetrics(root).keys()) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});
