import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The version in the working directory's package.json (the service's own, `services/<name>`), if any. */
function packageVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * The variables the telemetry bootstrap needs before any service code runs
 * (it is preloaded, so it cannot wait for the service's own config). The
 * OpenTelemetry SDK reads the remaining standard OTEL_* variables itself
 * (exporter headers and timeout, batch delay, OTEL_RESOURCE_ATTRIBUTES).
 */
export function readTelemetryConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()) {
  return {
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? basename(cwd),
    otlpEndpoint: nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    /** The image's build (a git sha or release) when the deployment says so, else the package's version. */
    serviceVersion: nonEmpty(env.SERVICE_VERSION) ?? packageVersion(cwd),
    /** `production`, `staging`…; NODE_ENV when unset. */
    environment: nonEmpty(env.DEPLOYMENT_ENVIRONMENT) ?? nonEmpty(env.NODE_ENV),
    /** Filled by the Kubernetes downward API (deploy/k8s); absent elsewhere. */
    podName: nonEmpty(env.K8S_POD_NAME),
    namespaceName: nonEmpty(env.K8S_NAMESPACE_NAME),
    nodeName: nonEmpty(env.K8S_NODE_NAME),
    /** Standard names and values (OpenTelemetry's environment specification). */
    sampler: nonEmpty(env.OTEL_TRACES_SAMPLER) ?? 'parentbased_always_on',
    samplerArg: nonEmpty(env.OTEL_TRACES_SAMPLER_ARG),
    /** `OTEL_TRACES_EXPORTER=none` exports nothing even with an endpoint. */
    exportTraces: env.OTEL_TRACES_EXPORTER?.trim() !== 'none',
    /** `http/protobuf` (the default) or `http/json`. */
    otlpProtocol: (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/protobuf',
    /** OpenTelemetry's switch: metrics stay, no span is ever made. */
    sdkDisabled: env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true',
  };
}

export type TelemetryConfig = ReturnType<typeof readTelemetryConfig>;

export const telemetryConfig: TelemetryConfig = readTelemetryConfig();
