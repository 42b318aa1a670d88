import { FastifyOtelInstrumentation } from '@fastify/otel';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { telemetryConfig } from './config.js';

const prometheusKey = Symbol.for('esim.telemetry.prometheus');
type Holder = { [prometheusKey]?: PrometheusExporter };

const probePaths = /^\/(healthz|readyz|metrics)\b/;

/**
 * Starts tracing and metrics for this process. Spans are exported over OTLP
 * only when an endpoint is configured; without one, spans still exist (so
 * logs carry trace ids and context propagates) but go nowhere.
 */
export function startTelemetry(): void {
  const holder = globalThis as Holder;
  if (holder[prometheusKey]) return;
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  holder[prometheusKey] = prometheus;

  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: telemetryConfig.serviceName }),
    metricReaders: [prometheus],
    // Without an endpoint a no-op processor still installs a tracer provider, so
    // spans (and the trace ids in logs) exist; with one, NodeSDK builds the
    // OTLP exporter from the standard OTEL_* variables.
    ...(telemetryConfig.otlpEndpoint ? {} : { spanProcessors: [new NoopSpanProcessor()] }),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => probePaths.test(req.url ?? '') }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation(),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  process.once('beforeExit', () => void sdk.shutdown());
}

/** Serves the Prometheus text format of every meter in this process. */
export function serveMetrics(request: IncomingMessage, response: ServerResponse): void {
  const prometheus = (globalThis as Holder)[prometheusKey];
  if (!prometheus) {
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end('# telemetry not started\n');
    return;
  }
  prometheus.getMetricsRequestHandler(request, response);
}
