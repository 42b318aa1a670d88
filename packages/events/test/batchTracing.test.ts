// Protects tracing through batch consumers: each event of a batch is handled in a consumer span of its own publisher's trace, so the work (and the events) it causes join that trace, as without batches.
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolClient } from '@esim/postgres';

const spans = new InMemorySpanExporter();
// Registered before the events module loads, so its tracer comes from this provider.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
const { ensureStreams, exactlyOnce, exactlyOnceBatch, startConsumer } = await import('@esim/events');
const { newId } = await import('@esim/ids');
const { createLogger } = await import('@esim/telemetry');
const { createTestInfra, until } = await import('./support/infra.js');
type TestInfra = Awaited<ReturnType<typeof createTestInfra>>;

const logger = createLogger('batch-tracing-test', 'silent');
const type = 'catalog.plan.changed';
let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('batch_tracing');
  await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
});
afterAll(async () => {
  await infra?.cleanup();
  trace.disable();
  propagation.disable();
  context.disable();
});

/** Publishes inside a span of a fresh trace, its context in the headers (as the outbox relay does); returns the trace id. */
async function publishTraced(planId: string): Promise<string> {
  return trace.getTracer('test').startActiveSpan(`request ${planId}`, async (span) => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    const h = natsHeaders();
    for (const [key, value] of Object.entries(carrier)) h.set(key, value);
    const event = { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: { planId, active: true } };
    await jetstream(infra.nc).publish(infra.ns.subject(type), JSON.stringify(event), { msgID: event.id, headers: h });
    span.end();
    return span.spanContext().traceId;
  });
}

describe('tracing in a batch', () => {
  it('when events of different traces are applied in one batch, then each is handled in a consumer span of its own trace', async () => {
    let release!: () => void;
    const opened = new Promise<void>((resolve) => (release = resolve));
    const seen = new Map<string, string | undefined>();
    const transactions = new Set<string>();
    const handle = async (event: { data: { planId: string } }, db: PoolClient) => {
      if (event.data.planId === 'gate') await opened;
      seen.set(event.data.planId, trace.getActiveSpan()?.spanContext().traceId);
      if (event.data.planId !== 'gate') transactions.add((await db.query<{ tx: string }>('SELECT txid_current() AS tx')).rows[0]!.tx);
    };
    const durable = 'batch_traced';
    const consumer = await startConsumer({
      nc: infra.nc,
      ns: infra.ns,
      logger,
      spec: { durable, type, ackWaitMs: 30_000, maxDeliver: 3, batch: 16 },
      handle: exactlyOnce(infra.pool, infra.schema, durable, handle),
      applyBatch: exactlyOnceBatch(infra.pool, infra.schema, durable, handle),
    });
    try {
      const jsm = await jetstreamManager(infra.nc);
      await publishTraced('gate');
      // The gate held alone first: published together, the gate and the next event could be taken as one batch.
      await until(async () => ((await jsm.consumers.info(infra.ns.stream('CATALOG'), infra.ns.durable(durable))).num_ack_pending === 1 && seen.size === 0 ? true : undefined), 'the gate held');
      const traces = { plan_a: await publishTraced('plan_a'), plan_b: await publishTraced('plan_b'), plan_c: await publishTraced('plan_c') };
      await until(async () => ((await jsm.consumers.info(infra.ns.stream('CATALOG'), infra.ns.durable(durable))).num_ack_pending === 4 ? true : undefined), 'four events held');
      release();
      await until(() => (seen.size === 4 ? true : undefined), 'four events handled');
      // The three behind the gate were one batch: the case this test is about.
      expect(transactions.size).toBe(1);
      for (const [planId, traceId] of Object.entries(traces)) {
        expect(seen.get(planId)).toBe(traceId);
        // A span ends once its batch committed and was acked, a moment after its handler ran.
        const consumed = await until(() => {
          const found = spans.getFinishedSpans().filter((s) => s.name === `process ${type}` && s.spanContext().traceId === traceId);
          return found.length > 0 ? found : undefined;
        }, `the consumer span of ${planId}`);
        expect(consumed).toHaveLength(1);
        expect(consumed[0]!.kind).toBe(SpanKind.CONSUMER);
      }
    } finally {
      await consumer.stop();
    }
  });
});
