// Protects what tracing costs a call whose trace is not recorded: pg's and outgoing HTTP's instrumentations, made recording-only, span a call under a recorded span as before, and under a span the sampler dropped (or none) let it go straight to the library, with no span (and no traceparent out).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
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
registerInstrumentations({
  tracerProvider,
  instrumentations: [
    recordingOnly(new PgInstrumentation({ requireParentSpan: true })),
    recordingOnly(new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }), ['request', 'get']),
  ],
});
// Loaded through require after the instrumentations are registered, as the telemetry preload does.
const require = createRequire(import.meta.url);
const pg = require('pg') as typeof pgModule;
const http = require('node:http') as typeof import('node:http');

let pool: pgModule.Pool;
const received: IncomingHttpHeaders[] = [];
const receiver = createServer((req, res) => {
  received.push(req.headers);
  res.end();
});
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', max: 1 });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await pool?.end();
  receiver.close();
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => {
  spans.reset();
  received.length = 0;
});

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

  it('when an HTTP request goes out under a recorded span, then it has its client span and carries traceparent; under a dropped span, neither', async () => {
    const get = () =>
      new Promise<void>((resolve, reject) =>
        http.get(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, (res) => res.resume().on('end', resolve)).on('error', reject),
      );
    const parent = trace.getTracer('test').startSpan('request');
    await context.with(trace.setSpan(ROOT_CONTEXT, parent), get);
    parent.end();
    expect(spans.getFinishedSpans().some((s) => s.name === 'GET')).toBe(true);
    expect(received[0]?.traceparent).toContain(parent.spanContext().traceId);
    spans.reset();
    const dropped = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE });
    await context.with(trace.setSpan(ROOT_CONTEXT, dropped), get);
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(received[1]?.traceparent).toBeUndefined();
  });
});
