import { basename } from 'node:path';

/**
 * The few variables the telemetry bootstrap needs before any service code
 * runs. The OpenTelemetry SDK reads the rest of the standard OTEL_* variables
 * itself (protocol, sampler, batch delay).
 */
export const telemetryConfig = {
  serviceName: process.env.OTEL_SERVICE_NAME ?? basename(process.cwd()),
  otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
};
