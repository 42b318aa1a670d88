// Protects the trace across our gRPC calls without OpenTelemetry's gRPC instrumentation: a recorded trace gets its client and server spans (same names and attributes as before), an unsampled one gets no span yet keeps its trace id and its "not sampled" flag downstream, and a call outside any span starts no client span.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AppError } from '@esim/errors';
import { addService, createClient, startGrpcServer, type GrpcServer, type ServiceClient, type ServiceHandlers } from '@esim/grpc';
import { catalogV1 } from '@esim/proto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

type Methods = (typeof catalogV1.CatalogService)['method'];

const spans = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [new SimpleSpanProcessor(spans)] }));

/** What the handler saw: its active span's ids and flags, and the traceparent that arrived. */
const handlers = {
  async getPlanPrice({ planId }, { metadata }) {
    if (planId === 'refused') throw new AppError('PLAN_NOT_FOUND', 'no such plan');
    const active = trace.getActiveSpan();
    const seen = { traceId: active?.spanContext().traceId, flags: active?.spanContext().traceFlags, recording: active?.isRecording(), traceparent: metadata.get('traceparent')[0] };
    return { planId, planName: JSON.stringify(seen), price: 1n, currency: 'USD', supplierSku: 'SKU' };
  },
} as Partial<ServiceHandlers<Methods>> as ServiceHandlers<Methods>;

let server: GrpcServer;
let client: ServiceClient<Methods>;
beforeAll(async () => {
  server = await startGrpcServer({ port: 0, host: '127.0.0.1', register: (s) => addService(s, catalogV1.CatalogService, handlers, () => {}) });
  client = createClient(catalogV1.CatalogService, `127.0.0.1:${server.port}`);
});
afterAll(async () => {
  client?.close();
  await server?.stop(100);
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => spans.reset());

const seenBy = async (planId = 'plan_x') =>
  JSON.parse((await client.getPlanPrice({ planId, tier: 'standard' })).planName) as { traceId?: string; flags?: number; recording?: boolean; traceparent?: string };

describe('gRPC tracing', () => {
  it('when a call is made under a recorded span, then the client and server spans join its trace, named and attributed as the instrumentation did', async () => {
    const parent = trace.getTracer('test').startSpan('request');
    const seen = await context.with(trace.setSpan(ROOT_CONTEXT, parent), () => seenBy());
    parent.end();
    const traceId = parent.spanContext().traceId;
    expect(seen).toMatchObject({ traceId, recording: true });
    const finished = spans.getFinishedSpans();
    const clientSpan = finished.find((s) => s.kind === SpanKind.CLIENT)!;
    const serverSpan = finished.find((s) => s.kind === SpanKind.SERVER)!;
    for (const span of [clientSpan, serverSpan]) {
      expect(span.name).toBe('grpc.catalog.v1.CatalogService/GetPlanPrice');
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.service': 'catalog.v1.CatalogService', 'rpc.method': 'GetPlanPrice', 'rpc.grpc.status_code': 0 });
    }
    expect(clientSpan.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
  });

  it('when a recorded call fails, then both spans carry its status code and are marked failed', async () => {
    const parent = trace.getTracer('test').startSpan('request');
    await context.with(trace.setSpan(ROOT_CONTEXT, parent), () => seenBy('refused')).catch(() => undefined);
    parent.end();
    const calls = spans.getFinishedSpans().filter((s) => s.name.startsWith('grpc.'));
    expect(calls).toHaveLength(2);
    for (const span of calls) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['rpc.grpc.status_code']).toBe(5);
    }
  });

  it('when a call is made under a span the sampler dropped, then no span is made, and the server runs in the same trace, still not sampled', async () => {
    const unsampled = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE });
    const seen = await context.with(trace.setSpan(ROOT_CONTEXT, unsampled), () => seenBy());
    expect(seen).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', flags: TraceFlags.NONE, recording: false, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' });
    expect(spans.getFinishedSpans()).toEqual([]);
  });

  it('when a call is made outside any span, then no client span is made and no traceparent is sent (the server decides as for a root)', async () => {
    const seen = await context.with(ROOT_CONTEXT, () => seenBy());
    expect(seen.traceparent).toBeUndefined();
    expect(spans.getFinishedSpans().map((s) => s.kind)).toEqual([SpanKind.SERVER]);
  });
});
