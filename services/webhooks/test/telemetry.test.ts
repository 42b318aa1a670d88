// Protects observability (§12): each attempt is a CLIENT span inside the trace of the request that caused the event, carrying no URL query or secret, and the SRE counters count outcomes, attempts, lag and work in flight, labelled by mode so no test delivery counts in a live total (§14).
import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountIdOf } from '@esim/ids';
import { paid } from './support/fixtures.js';
import type { TestEnv } from './support/testEnv.js';

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const reader = new TestReader();
// Registered before the service's modules load, so its tracer and meter come from these providers.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
const { createTestEnv, eventually } = await import('./support/testEnv.js');

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
  await env.start({ WEBHOOK_RETRY_SCHEDULE: '50ms' });
});
afterAll(async () => {
  await env?.cleanup();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
});

async function metric(name: string): Promise<MetricData | undefined> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
}

function sumWhere(data: MetricData | undefined, attributes: Record<string, string> = {}): number {
  return (data?.dataPoints ?? [])
    .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))
    .reduce((sum, point) => sum + (typeof point.value === 'number' ? point.value : (point.value as { count: number }).count), 0);
}

describe('tracing', () => {
  it('when an event caused by a traced request is delivered, then the attempt is a CLIENT span of that trace, child of the consumer span, without the URL query or the secret', async () => {
    const partner = env.addPartner({ url: `${env.receiver.url('/traced')}?token=query-secret-123` });
    let traceId = '';
    let eventId = '';
    await trace.getTracer('test').startActiveSpan('POST /api/v1/partner/orders', async (span) => {
      traceId = span.spanContext().traceId;
      eventId = await env.publish(paid(partner.id));
      span.end();
    });
    expect(await eventually(() => spans.getFinishedSpans().some((s) => s.name === 'webhook deliver payment.paid' && s.attributes['webhook.event_id'] === eventId), 10_000)).toBe(true);

    const finished = spans.getFinishedSpans();
    const attempt = finished.find((s) => s.name === 'webhook deliver payment.paid' && s.attributes['webhook.event_id'] === eventId)!;
    const consumed = finished.find((s) => s.name === 'process partner.notification' && s.spanContext().traceId === traceId)!;
    expect(attempt.kind).toBe(SpanKind.CLIENT);
    expect(attempt.spanContext().traceId).toBe(traceId);
    expect(attempt.parentSpanContext?.spanId).toBe(consumed.spanContext().spanId);
    expect(attempt.attributes).toMatchObject({ 'webhook.event_type': 'payment.paid', 'webhook.attempt': 1, 'http.response.status_code': 200, 'webhook.outcome': 'succeeded' });

    const everything = JSON.stringify(finished.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
    expect(everything).not.toContain('query-secret-123');
    expect(everything).not.toContain(partner.secret.slice(6));
    expect(everything).not.toContain('whsec_');
  });
});

describe('metrics', () => {
  it('when deliveries succeed, retry, fail and find no endpoint, then each outcome, the attempts and the lag are counted and nothing is left in flight', async () => {
    const before = { succeeded: sumWhere(await metric('webhook_deliveries_total'), { outcome: 'succeeded' }), attempts: sumWhere(await metric('webhook_delivery_attempts_total')) };
    const ok = env.addPartner();
    const failing = env.addPartner();
    env.receiver.behave(failing.path, () => ({ status: 500 }));
    const absent = env.addPartner({ url: null });
    const ids = [await env.publish(paid(ok.id)), await env.publish(paid(failing.id)), await env.publish(paid(absent.id))];
    expect(await eventually(async () => (await Promise.all(ids.map((id) => env.deliveryOf(id)))).every((d) => d && d.status !== 'pending'), 10_000)).toBe(true);

    const outcomes = await metric('webhook_deliveries_total');
    expect(sumWhere(outcomes, { outcome: 'succeeded' }) - before.succeeded).toBe(1);
    expect(sumWhere(outcomes, { outcome: 'retry' })).toBeGreaterThanOrEqual(1);
    expect(sumWhere(outcomes, { outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(sumWhere(outcomes, { outcome: 'no_endpoint' })).toBeGreaterThanOrEqual(1);
    // One for the success, two for the failing partner (first try and its one retry).
    expect(sumWhere(await metric('webhook_delivery_attempts_total')) - before.attempts).toBe(3);
    expect(sumWhere(await metric('webhook_delivery_lag_ms'))).toBeGreaterThanOrEqual(1);
    expect(sumWhere(await metric('webhook_deliveries_in_flight'))).toBe(0);
  });

  it('when a test account’s delivery succeeds, then it is counted under livemode="false" and the live series do not move', async () => {
    const live = { succeeded: sumWhere(await metric('webhook_deliveries_total'), { outcome: 'succeeded', livemode: 'true' }), attempts: sumWhere(await metric('webhook_delivery_attempts_total'), { livemode: 'true' }) };
    const test = { succeeded: sumWhere(await metric('webhook_deliveries_total'), { outcome: 'succeeded', livemode: 'false' }), attempts: sumWhere(await metric('webhook_delivery_attempts_total'), { livemode: 'false' }) };
    const partner = env.addPartner();
    const testAccount = accountIdOf(partner.id, false);
    env.partners.setEndpoint(testAccount, { url: env.receiver.url(`${partner.path}/test`), secret: partner.secret });
    const id = await env.publish(paid(testAccount));
    expect(await eventually(async () => (await env.deliveryOf(id))?.status === 'succeeded', 10_000)).toBe(true);

    const outcomes = await metric('webhook_deliveries_total');
    expect(sumWhere(outcomes, { outcome: 'succeeded', livemode: 'false' }) - test.succeeded).toBe(1);
    expect(sumWhere(outcomes, { outcome: 'succeeded', livemode: 'true' })).toBe(live.succeeded);
    const attempts = await metric('webhook_delivery_attempts_total');
    expect(sumWhere(attempts, { livemode: 'false' }) - test.attempts).toBe(1);
    expect(sumWhere(attempts, { livemode: 'true' })).toBe(live.attempts);
    expect(sumWhere(await metric('webhook_delivery_lag_ms'), { livemode: 'false' })).toBeGreaterThanOrEqual(1);
  });
});
