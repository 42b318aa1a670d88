// Protects who decides what we trace: a partner's traceparent keeps its trace id but cannot force or suppress our sampling, our own propagation (gRPC, NATS) is followed, OTEL_TRACES_SAMPLER picks the sampler, and every span and metric names its service, build, environment and pod.
import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Attributes, type Context } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { readTelemetryConfig, resourceAttributes, samplerFor } from '@esim/telemetry';

const partnerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
/** A parent span context as an extracted `traceparent` (remote) or our own span (local). */
function parent(flags: TraceFlags, isRemote: boolean, traceId = partnerTrace): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: '00f067aa0ba902b7', traceFlags: flags, isRemote });
}
const httpServer: Attributes = { 'http.request.method': 'POST', 'url.scheme': 'http' };
const grpcServer: Attributes = { 'rpc.system': 'grpc', 'rpc.method': 'CreateOrder' };
const decide = (sampler: ReturnType<typeof samplerFor>, ctx: Context, kind: SpanKind, attributes: Attributes, traceId = partnerTrace) =>
  sampler.shouldSample(ctx, traceId, 'span', kind, attributes, []).decision;

// Trace ids whose decision at 0.1 is known: the ratio sampler XORs the id's four 32-bit words and keeps it under 0.1 × 2^32.
const keptAtTenth = '000000000000000000000000000000ff';
const droppedAtTenth = 'ffffffff000000000000000000000000';

describe('the edge-aware parent-based sampler (parentbased_traceidratio 0.1)', () => {
  const sampler = samplerFor('parentbased_traceidratio', '0.1');

  it('when a partner sends a sampled traceparent on an HTTP request, then the ratio decides, not the flag', () => {
    expect(decide(sampler, parent(TraceFlags.SAMPLED, true, droppedAtTenth), SpanKind.SERVER, httpServer, droppedAtTenth)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(sampler, parent(TraceFlags.SAMPLED, true, keptAtTenth), SpanKind.SERVER, httpServer, keptAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it('when a partner sends an unsampled traceparent, then it cannot hide its request from the ratio either', () => {
    expect(decide(sampler, parent(TraceFlags.NONE, true, keptAtTenth), SpanKind.SERVER, httpServer, keptAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it('when the parent arrived over our own gRPC or NATS propagation, then its decision is followed whatever the ratio says', () => {
    expect(decide(sampler, parent(TraceFlags.SAMPLED, true, droppedAtTenth), SpanKind.SERVER, grpcServer, droppedAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(sampler, parent(TraceFlags.NONE, true, keptAtTenth), SpanKind.SERVER, grpcServer, keptAtTenth)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(sampler, parent(TraceFlags.SAMPLED, true, droppedAtTenth), SpanKind.CONSUMER, {}, droppedAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it('when a span has a local parent (fastify, pg, an outgoing call), then it follows that parent', () => {
    expect(decide(sampler, parent(TraceFlags.SAMPLED, false, droppedAtTenth), SpanKind.CLIENT, httpServer, droppedAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(sampler, parent(TraceFlags.NONE, false, keptAtTenth), SpanKind.INTERNAL, {}, keptAtTenth)).toBe(SamplingDecision.NOT_RECORD);
  });

  it('when a request comes without a traceparent, then the ratio decides', () => {
    expect(decide(sampler, context.active(), SpanKind.SERVER, httpServer, droppedAtTenth)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(sampler, context.active(), SpanKind.SERVER, httpServer, keptAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });
});

describe('OTEL_TRACES_SAMPLER', () => {
  it('when unset, then every trace is recorded (parentbased_always_on) and a partner flag still decides nothing', () => {
    const sampler = samplerFor(readTelemetryConfig({}, '/nowhere').sampler);
    expect(decide(sampler, parent(TraceFlags.NONE, true), SpanKind.SERVER, httpServer)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide(sampler, parent(TraceFlags.NONE, true), SpanKind.SERVER, grpcServer)).toBe(SamplingDecision.NOT_RECORD);
  });

  it('when always_off or a ratio of 0 is asked for, then nothing new is recorded; an invalid ratio records everything', () => {
    expect(decide(samplerFor('always_off'), ROOT_CONTEXT, SpanKind.SERVER, httpServer)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(samplerFor('parentbased_traceidratio', '0'), parent(TraceFlags.SAMPLED, true), SpanKind.SERVER, httpServer)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(samplerFor('traceidratio', 'lots'), ROOT_CONTEXT, SpanKind.SERVER, httpServer, droppedAtTenth)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });
});

describe('resource attributes', () => {
  it('when running in Kubernetes, then service, version, environment and the downward-API names are on the resource', () => {
    const config = readTelemetryConfig(
      { OTEL_SERVICE_NAME: 'orders', SERVICE_VERSION: '1a2b3c4', DEPLOYMENT_ENVIRONMENT: 'production', NODE_ENV: 'production', K8S_POD_NAME: 'orders-7d9f-abc', K8S_NAMESPACE_NAME: 'esim', K8S_NODE_NAME: 'node-3' },
      '/nowhere',
    );
    expect(resourceAttributes(config)).toEqual({
      'service.name': 'orders',
      'service.version': '1a2b3c4',
      'deployment.environment': 'production',
      'deployment.environment.name': 'production',
      'k8s.pod.name': 'orders-7d9f-abc',
      'k8s.namespace.name': 'esim',
      'k8s.node.name': 'node-3',
    });
  });

  it('when running elsewhere, then the version comes from the package, the environment from NODE_ENV, and no empty k8s attribute appears', () => {
    const config = readTelemetryConfig({ NODE_ENV: 'development', K8S_POD_NAME: '' }, new URL('..', import.meta.url).pathname);
    expect(resourceAttributes(config)).toEqual({
      'service.name': 'telemetry',
      'service.version': '0.1.0',
      'deployment.environment': 'development',
      'deployment.environment.name': 'development',
    });
  });
});

describe('telemetry switches', () => {
  it('when nothing is set, then spans are exported over http/protobuf and the SDK is on; the standard variables change each', () => {
    expect(readTelemetryConfig({}, '/nowhere')).toMatchObject({ exportTraces: true, otlpProtocol: 'http/protobuf', sdkDisabled: false });
    expect(
      readTelemetryConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SDK_DISABLED: 'TRUE' }, '/nowhere'),
    ).toMatchObject({ exportTraces: false, otlpProtocol: 'http/json', sdkDisabled: true });
    expect(readTelemetryConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, '/nowhere').otlpProtocol).toBe('http/protobuf');
  });
});
