/**
 * The metric names a PromQL expression reads, for checking that alert rules
 * and dashboards query metrics the services really export. A small
 * tokenizer, not a parser: it drops strings, label matchers, range and
 * subquery brackets, grouping clauses and numbers, then keeps identifiers
 * that are not functions, aggregations or keywords.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const functions = new Set([
  'abs', 'absent', 'absent_over_time', 'avg_over_time', 'ceil', 'changes', 'clamp', 'clamp_max', 'clamp_min', 'count_over_time',
  'day_of_month', 'day_of_week', 'days_in_month', 'delta', 'deriv', 'exp', 'floor', 'histogram_quantile', 'holt_winters', 'hour',
  'idelta', 'increase', 'irate', 'label_join', 'label_replace', 'last_over_time', 'ln', 'log10', 'log2', 'max_over_time',
  'min_over_time', 'minute', 'month', 'predict_linear', 'quantile_over_time', 'rate', 'resets', 'round', 'scalar', 'sort',
  'sort_desc', 'sqrt', 'stddev_over_time', 'stdvar_over_time', 'sum_over_time', 'time', 'timestamp', 'vector', 'year',
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile',
  'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'inf', 'nan',
]);

/** Metric names in one expression; recording-rule names (`a:b:c`) are kept too, and told apart by `isRecordingRule`. */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = [...stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)].map((match) => match[0]).filter((token) => !functions.has(token));
  return [...new Set(names)];
}

export const isRecordingRule = (name: string) => name.includes(':');

/**
 * The name a service exports for a series name: histograms' `_bucket`,
 * `_sum` and `_count` belong to the histogram; `_total` is kept (counters
 * are exported with it).
 */
export function exportedBase(name: string): string {
  return name.replace(/_(bucket|sum|count)$/, '');
}

export interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ record?: string; alert?: string; expr: string; annotations?: Record<string, string> }> }>;
}

export function readRules(root: string): RuleFile {
  return parse(readFileSync(join(root, 'deploy/observability/alerts.yml'), 'utf8')) as RuleFile;
}

interface Panel {
  title?: string;
  type?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

export function readDashboard(root: string): { uid?: string; panels: Panel[] } {
  return JSON.parse(readFileSync(join(root, 'deploy/observability/grafana/dashboards/esim-platform.json'), 'utf8')) as { uid?: string; panels: Panel[] };
}

/** Every expression of the rules and the dashboard, with where it comes from. */
export function queries(root: string): Array<{ where: string; expr: string }> {
  const rules = readRules(root).groups.flatMap((group) => group.rules.map((rule) => ({ where: `rule ${rule.alert ?? rule.record}`, expr: rule.expr })));
  const panels = readDashboard(root).panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  const dashboard = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr ?? '' })));
  return [...rules, ...dashboard];
}

/** Every metric the rules and the dashboard read from the services (recording rules excluded). */
export function queriedMetrics(root: string): Map<string, string[]> {
  const recorded = new Set(readRules(root).groups.flatMap((group) => group.rules.map((rule) => rule.record).filter((name) => name !== undefined)));
  const byMetric = new Map<string, string[]>();
  for (const { where, expr } of queries(root)) {
    for (const name of metricNames(expr)) {
      if (recorded.has(name)) continue;
      byMetric.set(name, [...(byMetric.get(name) ?? []), where]);
    }
  }
  return byMetric;
}

/** Metric names on a Prometheus text page (`# TYPE` lines and samples). */
export function exportedMetrics(page: string): Set<string> {
  const names = new Set<string>();
  for (const line of page.split('\n')) {
    const typed = /^# TYPE (\S+) /.exec(line);
    if (typed) names.add(typed[1]!);
    else if (line !== '' && !line.startsWith('#')) names.add(line.split(/[{ ]/)[0]!);
  }
  return names;
}
