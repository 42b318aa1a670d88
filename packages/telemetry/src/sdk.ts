import { createNoopMeter, diag, metrics, type MeterProvider as ApiMeterProvider } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { telemetryConfig } from './config.js';
import { recordingOnly } from './recordingOnly.js';
import { metricResourceLabels, resourceAttributes } from './resource.js';
import { startRuntimeMetrics } from './runtimeMetrics.js';
import { samplerFor } from './sampler.js';

const prometheusKey = Symbol.for('esim.telemetry.prometheus');
const sdkKey = Symbol.for('esim.telemetry.sdk');
const httpKey = Symbol.for('esim.telemetry.http');
type Holder = { [prometheusKey]?: PrometheusExporter; [sdkKey]?: { shutdown(): Promise<unknown> }; [httpKey]?: HttpInstrumentation };

const probePaths = /^\/(healthz|readyz|metrics)\b/;

const noMetrics: ApiMeterProvider = { getMeter: () => createNoopMeter() };

/**
 * The OTLP/HTTP span exporter OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL names
 * (`http/protobuf` by default, `http/json`), imported only when an endpoint
 * is configured: each exporter reads its endpoint, headers, timeout and
 * compression from the standard variables itself. `OTEL_TRACES_EXPORTER=none`
 * exports nothing.
 */
async function spanExporter(): Promise<SpanExporter | undefined> {
  if (!telemetryConfig.otlpEndpoint || !telemetryConfig.exportTraces) return undefined;
  const protocol = telemetryConfig.otlpProtocol;
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  if (protocol !== 'http/protobuf') diag.warn(`OTLP protocol "${protocol}" is not supported here; exporting spans over http/protobuf.`);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/**
 * Starts tracing and metrics for this process. Spans are exported over OTLP
 * only when an endpoint is configured; without one, spans still exist (so
 * logs carry trace ids and context propagates) but go nowhere.
 *
 * Built from the pieces it uses (tracer provider, one OTLP/HTTP exporter,
 * Prometheus reader, the instrumentations below) rather than NodeSDK, which
 * loads every exporter (gRPC, Zipkin, logs, metrics) and costs each process
 * tens of MiB it never uses (docs/benchmarks.md, idle memory).
 */
export async function startTelemetry(): Promise<void> {
  const holder = globalThis as Holder;
  if (holder[prometheusKey]) return;
  const prometheus = new PrometheusExporter({ preventServerStart: true, withResourceConstantLabels: metricResourceLabels });
  holder[prometheusKey] = prometheus;

  // The same detectors NodeSDK ran: OTEL_RESOURCE_ATTRIBUTES, process and host.
  const resource = resourceFromAttributes(resourceAttributes(telemetryConfig)).merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
  const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  // OpenTelemetry's switch (OTEL_SDK_DISABLED=true): metrics stay, no span is ever made (the benchmarks use it to price tracing).
  if (telemetryConfig.sdkDisabled) {
    holder[sdkKey] = meterProvider;
    startRuntimeMetrics(metrics.getMeter('nodejs'));
    return;
  }
  const exporter = await spanExporter();
  const tracerProvider = new NodeTracerProvider({
    resource,
    sampler: samplerFor(telemetryConfig.sampler, telemetryConfig.samplerArg),
    // Without an exporter a no-op processor still makes spans (and the trace ids in logs) exist.
    spanProcessors: [exporter ? new BatchSpanProcessor(exporter) : new NoopSpanProcessor()],
  });
  // Global tracer provider, AsyncLocalStorage context, W3C trace context and baggage propagation.
  tracerProvider.register();
  const httpInstrumentation = recordingOnly(new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => probePaths.test(req.url ?? '') }), ['request', 'get']);
  holder[httpKey] = httpInstrumentation;
  const pgInstrumentation = recordingOnly(new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }));
  registerInstrumentations({
    tracerProvider,
    meterProvider,
    instrumentations: [
      // No span per fastify hook (what @fastify/otel added): it cost the gateway about a tenth of its
      // CPU and said nothing the HTTP server span does not.
      httpInstrumentation,
      // No gRPC instrumentation: @esim/grpc's adapter makes the spans of its calls and carries traceparent
      // itself, doing nothing more than that for a call whose trace is not recorded.
      // pg and ioredis only inside a recorded span (recordingOnly.ts): background polls (outbox relay,
      // sweepers) make no root traces, and a dropped trace's calls go straight to the driver.
      pgInstrumentation,
      // The command's name is the statement: no keys or arguments in spans, and nothing to build per call.
      recordingOnly(new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command })),
      new UndiciInstrumentation(),
    ],
  });
  // pg's per-query histogram and per-checkout pool counters hashed their attributes on every query, traced or
  // not, and would now count only the recorded tenth: none of them is read (our pools' own gauges are, pool.ts).
  pgInstrumentation.setMeterProvider(noMetrics);
  // Nor do its pool listeners run (they updated those counters on every checkout and release, once a
  // recorded query had passed by): the method that attaches them is private, hence the cast.
  (pgInstrumentation as unknown as { _setPoolConnectEventListeners?: (pool: unknown) => void })._setPoolConnectEventListeners = () => {};
  const sdk = { shutdown: () => Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]) };
  holder[sdkKey] = sdk;
  startRuntimeMetrics(metrics.getMeter('nodejs'));
  process.once('beforeExit', () => void sdk.shutdown());
}

/**
 * For a process whose HTTP server makes its own server spans
 * (httpServerSpans.ts: the gateway, from a fastify hook): the HTTP
 * instrumentation stops wrapping incoming requests (outgoing ones stay
 * traced). Its wrapper cost the gateway about a third of its CPU per request,
 * even for the requests the sampler drops or the probes it ignores. Call it
 * before the server takes requests.
 */
export function tracesOwnHttpServers(): void {
  const http = (globalThis as Holder)[httpKey];
  if (!http || http.getConfig().disableIncomingRequestInstrumentation) return;
  // Unpatched under the old setting (which is what removes the incoming wrapper from the already
  // loaded http module), then patched again under the new one: outgoing requests only.
  http.disable();
  http.setConfig({ ...http.getConfig(), disableIncomingRequestInstrumentation: true });
  http.enable();
}

/**
 * Flushes the spans still batched and stops the SDK: the last shutdown step,
 * so the spans of the work drained just before are exported. Bounded, so an
 * unreachable collector cannot eat the shutdown deadline.
 */
export async function shutdownTelemetry(timeoutMs = 5_000): Promise<void> {
  const holder = globalThis as Holder;
  const sdk = holder[sdkKey];
  if (!sdk) return;
  holder[sdkKey] = undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([sdk.shutdown(), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]).finally(() => clearTimeout(timer));
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
