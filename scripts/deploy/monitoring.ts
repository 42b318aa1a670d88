/**
 * What Prometheus and Grafana need, from one source each: the alert rules
 * (deploy/observability/alerts.yml, checked by promtool) and the dashboard
 * (deploy/observability/grafana/dashboards/esim-platform.json). Compose
 * mounts those files; Kubernetes gets them wrapped here, as the Prometheus
 * Operator's PrometheusRule and a ConfigMap Grafana's sidecar loads, beside a
 * PodMonitor for every service's metrics port. deploy/k8s/monitoring is
 * included by the production overlay.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceEntry } from '../launcher/services.js';
import { repoRoot } from '../launcher/supervisor.js';
import { generatedHeader, indent, metricsPort, namespaceName, partOf, portNames } from './settings.js';
import { workloadsOf } from './workloads.js';

export const observabilityDir = 'deploy/observability';
export const alertsFile = `${observabilityDir}/alerts.yml`;
export const dashboardFile = `${observabilityDir}/grafana/dashboards/esim-platform.json`;

/** kube-prometheus-stack selects rules and monitors by its release label; change it to your release's name. */
const operatorLabels = `app.kubernetes.io/part-of: ${partOf}\nrelease: kube-prometheus-stack`;

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

function podMonitor(list: readonly ServiceEntry[]): string {
  const ports = [...new Set(list.map((entry) => portNames[metricsPort(entry.ports)]))];
  return `${generatedHeader}
#
# Scrapes /metrics on each pod's metrics port: the health port, or the admin
# listener for the gateway (never the public one). Every series carries
# service_name, service_version and the k8s_* labels from the service itself.
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata:
  name: ${partOf}
  labels:
${indent(operatorLabels, 4)}
spec:
  selector:
    matchLabels:
      app.kubernetes.io/part-of: ${partOf}
  podMetricsEndpoints:
${ports.map((port) => `    - port: ${port}\n      path: /metrics\n      interval: 15s`).join('\n')}
`;
}

function prometheusRule(): string {
  return `${generatedHeader}
# The rules are deploy/observability/alerts.yml, verbatim.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: ${partOf}
  labels:
${indent(operatorLabels, 4)}
spec:
${indent(read(alertsFile).trimEnd(), 2)}
`;
}

function dashboard(): string {
  return `${generatedHeader}
# deploy/observability/grafana/dashboards/esim-platform.json, for Grafana's
# dashboard sidecar (kube-prometheus-stack loads ConfigMaps labelled so).
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${partOf}-dashboard
  labels:
    app.kubernetes.io/part-of: ${partOf}
    grafana_dashboard: "1"
data:
  esim-platform.json: |
${indent(read(dashboardFile).trimEnd(), 4)}
`;
}

const kustomization = `${generatedHeader}
#
# Needs the Prometheus Operator's CRDs (kube-prometheus-stack). The
# production overlay includes this directory; without the operator, drop it
# there and point your Prometheus at the pods' prometheus.io/* annotations.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespaceName}
resources:
  - podmonitor.yaml
  - prometheusrule.yaml
  - grafana-dashboard.yaml
`;

export function monitoringFiles(list: readonly ServiceEntry[]): Record<string, string> {
  return {
    'kustomization.yaml': kustomization,
    'podmonitor.yaml': podMonitor(list),
    'prometheusrule.yaml': prometheusRule(),
    'grafana-dashboard.yaml': dashboard(),
  };
}

/**
 * deploy/observability/prometheus.yml: Compose's Prometheus scrapes every
 * container by its Compose name, a test-mode replica as its own job (its
 * series carry the service's service_name; the job tells the two apart).
 */
export function composePrometheus(list: readonly ServiceEntry[]): string {
  const jobs = workloadsOf(list).map(
    ({ name, entry }) => `  - job_name: ${name}
    metrics_path: /metrics
    static_configs:
      - targets: ["${name}:${entry.ports[metricsPort(entry.ports)]}"]`,
  );
  return `${generatedHeader}
#
# Prometheus of \`docker compose --profile observability up\` (http://localhost:9090).
global:
  scrape_interval: 15s
  evaluation_interval: 15s
rule_files:
  - /etc/prometheus/alerts.yml
scrape_configs:
${jobs.join('\n')}
`;
}
