// Protects what tracing costs a call whose trace is not recorded: pg's instrumentation, made recording-only, spans a query under a recorded span as before, and under a span the sampler dropped (or none) lets the query go straight to pg, with no span.
import { createRequire } from 'node:module';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type pgModule from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordingOnly } from '../src/recordingOnly.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(tracerProvider);
registerInstrumentations({ tracerProvider, instrumentations: [recordingOnly(new PgInstrumentation({ requireParentSpan: true }))] });
// Loaded through require after the instrumentation is registered, as the telemetry preload does.
const pg = createRequire(import.meta.url)('pg') as typeof pgModule;

let pool: pgModule.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', max: 1 });
});
afterAll(async () => {
  await pool?.end();
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => spans.reset());

const queryUnder = (parent: ReturnType<typeof trace.wrapSpanContext> | undefined) =>
  context.with(parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT, () => pool.query('SELECT 1 AS one'));

describe('recording-only instrumentation', () => {
  it('when pg is loaded after it, then pg is patched (the precondition of the rest)', () => {
    expect((pg.Client.prototype.query as { __wrapped?: boolean }).__wrapped).toBe(true);
  });

  it('when a query runs under a recorded span, then it has its span in that trace', async () => {
    const parent = trace.getTracer('test').startSpan('request');
    const { rows } = await queryUnder(parent);
    parent.end();
    expect(rows).toEqual([{ one: 1 }]);
    const queries = spans.getFinishedSpans().filter((s) => s.name !== 'request');
    expect(queries.some((s) => s.name.startsWith('pg.query:SELECT'))).toBe(true);
    expect(queries.every((s) => s.spanContext().traceId === parent.spanContext().traceId)).toBe(true);
  });

  it('when a query runs under a span the sampler dropped, or under none, then it answers and no span is made', async () => {
    const dropped = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE });
    expect((await queryUnder(dropped)).rows).toEqual([{ one: 1 }]);
    expect((await queryUnder(undefined)).rows).toEqual([{ one: 1 }]);
    expect(spans.getFinishedSpans()).toEqual([]);
  });
});
