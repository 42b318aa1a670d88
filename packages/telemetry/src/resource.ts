import type { Attributes } from '@opentelemetry/api';
import type { TelemetryConfig } from './config.js';

/**
 * The attributes every span and every metric of this process carries: which
 * service, which build, which environment and, in Kubernetes, which pod on
 * which node. Unset values are left out rather than reported empty.
 */
export function resourceAttributes(config: TelemetryConfig): Attributes {
  const attributes: Record<string, string | undefined> = {
    'service.name': config.serviceName,
    'service.version': config.serviceVersion,
    // The pre-1.27 name, which most backends still group by, and the current one.
    'deployment.environment': config.environment,
    'deployment.environment.name': config.environment,
    'k8s.pod.name': config.podName,
    'k8s.namespace.name': config.namespaceName,
    'k8s.node.name': config.nodeName,
  };
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;
}

/**
 * Which resource attributes become labels on every Prometheus series (the
 * OTLP side carries all of them anyway): service_name lets the alert rules
 * group by service whatever the scrape configuration calls its jobs; host
 * and process attributes would only add cardinality.
 */
export const metricResourceLabels = /^(service\.name|service\.version|deployment\.environment|k8s\.(pod|namespace|node)\.name)$/;
