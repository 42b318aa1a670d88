// Protects what operators see of the event pipeline and how it connects: consumer backlog and event lag on /metrics, the outbox's oldest unpublished event, stream replicas from configuration, and NATS credentials/TLS from files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The events modules create their instruments at import: the provider must be global first.
const reader = new PrometheusExporter({ preventServerStart: true });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
const { connectNats, enqueueEvent, ensureStreams, natsConnectOptions, startConsumer, startOutboxRelay } = await import('@esim/events');
const { withTransaction } = await import('@esim/postgres');
const { createLogger } = await import('@esim/telemetry');
const { createTestInfra, natsUrl, until } = await import('./support/infra.js');
type TestInfra = Awaited<ReturnType<typeof createTestInfra>>;

const logger = createLogger('events-observability-test', 'silent');
const scrape = async () => new PrometheusSerializer().serialize((await reader.collect()).resourceMetrics);
const sample = (page: string, metric: string, label: string) => {
  const line = page.split('\n').find((candidate) => candidate.startsWith(`${metric}{`) && candidate.includes(label));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

let infra: TestInfra;
const dirs: string[] = [];
beforeAll(async () => {
  infra = await createTestInfra('evobs');
});
afterAll(async () => {
  await infra?.cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('consumer metrics', () => {
  it('when events wait behind a busy handler, then JetStream backlog shows per durable, and once handled each lands in the event-lag histogram', async () => {
    await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const consumer = await startConsumer({
      nc: infra.nc,
      ns: infra.ns,
      logger,
      spec: { durable: 'lag_probe', type: 'catalog.plan.changed', ackWaitMs: 30_000, maxDeliver: 3, retryDelayMs: () => 100 },
      handle: () => gate,
      lagPollMs: 100,
    });
    try {
      const relay = startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 10 });
      for (const planId of ['plan_a', 'plan_b', 'plan_c']) {
        await withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, 'catalog.plan.changed', { planId, active: true }));
      }
      const backlog = await until(async () => {
        const page = await scrape();
        const waiting = (sample(page, 'jetstream_consumer_pending_messages', 'consumer="lag_probe"') ?? 0) + (sample(page, 'jetstream_consumer_ack_pending_messages', 'consumer="lag_probe"') ?? 0);
        return waiting === 3 ? waiting : undefined;
      }, 'three events waiting for lag_probe');
      expect(backlog).toBe(3);
      release();
      const handled = await until(async () => {
        const page = await scrape();
        return sample(page, 'events_lag_ms_count', 'consumer="lag_probe"') === 3 ? page : undefined;
      }, 'three handled events in events_lag_ms');
      expect(sample(handled, 'events_lag_ms_bucket', 'le="+Inf"')).toBeGreaterThanOrEqual(3);
      await until(async () => ((sample(await scrape(), 'jetstream_consumer_ack_pending_messages', 'consumer="lag_probe"') ?? 1) === 0 ? true : undefined), 'no ack pending once handled');
      await relay.stop();
    } finally {
      release();
      await consumer.stop();
    }
  });

  it('when the relay cannot publish, then the oldest unpublished event ages on /metrics beside the backlog', async () => {
    // No AUDIT stream exists in this namespace, so the relay's publish fails and the row stays.
    const audit = { action: 'partner.approved', target: 'ptn_1', operator: 'ops', requestId: 'req_1', note: '', details: {}, occurredAt: new Date().toISOString() };
    await withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, 'audit.recorded', audit));
    await infra.pool.query(`UPDATE ${infra.schema}.outbox SET created_at = now() - interval '90 seconds' WHERE subject = 'audit.recorded'`);
    const relay = startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 50 });
    try {
      const page = await scrape();
      expect(sample(page, 'outbox_oldest_unpublished_age_seconds', `schema="${infra.schema}"`)).toBeGreaterThanOrEqual(90);
      expect(sample(page, 'outbox_backlog', `schema="${infra.schema}"`)).toBe(1);
    } finally {
      await relay.stop();
      await infra.pool.query(`DELETE FROM ${infra.schema}.outbox WHERE subject = 'audit.recorded'`);
    }
  });
});

describe('streams and connections', () => {
  it('when NATS_STREAM_REPLICAS asks for 3 on a single server, then the server is asked and refuses; unset, an existing stream keeps its replicas', async () => {
    await expect(ensureStreams(infra.nc, infra.ns, ['MAIL'], { replicas: 3 })).rejects.toThrow(/replica/i);
    await ensureStreams(infra.nc, infra.ns, ['MAIL'], { replicas: 1 });
    const jsm = await ensureStreams(infra.nc, infra.ns, ['MAIL']);
    expect((await jsm.streams.info(infra.ns.stream('MAIL'))).config.num_replicas).toBe(1);
  });

  it('when credentials and a CA are configured, then connections authenticate with the creds file and require TLS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esim-nats-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'user.creds'), '-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5In0.e30.sig\n------END NATS USER JWT------\n');
    writeFileSync(join(dir, 'ca.crt'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const options = natsConnectOptions({ credsFile: join(dir, 'user.creds'), tls: { caFile: join(dir, 'ca.crt') } });
    expect(typeof options.authenticator).toBe('function');
    expect(options.tls).toEqual({ caFile: join(dir, 'ca.crt') });
    expect(natsConnectOptions({ tls: {} })).toEqual({});
    expect(() => natsConnectOptions({ credsFile: join(dir, 'missing.creds') })).toThrow(`NATS_CREDS: cannot read ${join(dir, 'missing.creds')}`);
    // The local server speaks plaintext: a client that requires TLS does not connect to it.
    await expect(connectNats(natsUrl, 'tls-required-test', { tls: { caFile: join(dir, 'ca.crt') } })).rejects.toThrow();
  });
});
