// Protects the service bootstrap every service relies on: migrations and event tables at start, the outbox relay, shutdown in order with in-flight events finished, and a failed start that leaves nothing open.
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { commonEnv, ConfigError, loadConfig } from '@esim/config';
import { enqueueEvent, type EventEnvelope, type NatsConnection } from '@esim/events';
import { catalogV1 } from '@esim/proto';
import type { Pool } from '@esim/postgres';
import { newId } from '@esim/ids';
import { defineService, grpcBinding, serviceEnv, startService, type ServiceContext, type Started } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestInfra, natsUrl, until, type TestInfra } from '../../events/test/support/infra.js';

const configSchema = z.object({ ...serviceEnv(0), GRPC_PORT: commonEnv.port(0), DATABASE_URL: commonEnv.DATABASE_URL });
type Config = z.output<typeof configSchema>;
const migrationsDir = fileURLToPath(new URL('./fixtures/migrations', import.meta.url));
const logger = createLogger('widgets', process.env.TEST_LOG ?? 'silent');
const type = 'catalog.plan.changed';

let infra: TestInfra;
beforeAll(async () => {
  infra = await createTestInfra('service');
});
afterAll(() => infra?.cleanup());
// Each test's consumer reads the stream from the start: it must hold only that test's events.
beforeEach(async () => {
  await (await jetstreamManager(infra.nc)).streams.purge(infra.ns.stream('CATALOG')).catch(() => undefined);
});

/** A tiny service defined here: schema `widgets`, publishes CATALOG, wired by `start`. */
function widgets(start: (context: ServiceContext<Config>) => Promise<Started>) {
  return defineService({
    name: 'widgets',
    config: (env) => loadConfig(configSchema, env),
    postgres: { schema: 'widgets', migrationsDir, poolSize: 3 },
    publishes: ['CATALOG'],
    start,
  });
}

const env = (extra: Record<string, string> = {}) => ({
  NODE_ENV: 'test',
  DATABASE_URL: infra.databaseUrl,
  NATS_URL: natsUrl,
  PLATFORM_NAMESPACE: infra.namespace,
  GRPC_PORT: '0',
  HEALTH_PORT: '0',
  ...extra,
});

const readyz = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(
    async (response) => ({ status: response.status, body: (await response.json()) as { checks: Record<string, string> } }),
    () => ({ status: 0, body: { checks: {} } }),
  );

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const consumerSpec = { durable: 'widget-maker', type, ackWaitMs: 5_000, maxDeliver: 3, retryDelayMs: () => 100 } as const;

describe('starting', () => {
  it('when a service with a schema starts, then its migrations and the event tables are in its schema, readiness names each check, and its outbox is relayed', async () => {
    const app = await startService(
      widgets(async () => ({ readiness: [{ name: 'widget-supplier', check: async () => true }] })),
      { env: env(), logger },
    );
    try {
      const { rows } = await infra.pool.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'widgets' ORDER BY table_name`,
      );
      expect(rows.map((r) => r.table_name)).toEqual(['outbox', 'pgmigrations', 'pgmigrations_events', 'processed_events', 'widgets']);

      const ready = await readyz(app.ports.health);
      expect(ready).toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', nats: 'ok', 'widget-supplier': 'ok' } } });

      const id = await enqueueEvent(infra.pool, 'widgets', type, { planId: 'plan_relayed', active: true });
      await until(async () => {
        const { rows: outbox } = await infra.pool.query('SELECT 1 FROM widgets.outbox WHERE id = $1 AND published_at IS NOT NULL', [id]);
        return outbox.length === 1 ? true : undefined;
      }, 'the outbox relay to publish the event');
      expect(await infra.streamMessages('CATALOG')).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('when a replica serves the test lane only, then its Postgres sessions are named <service>-test; serving live too, <service>', async () => {
    const sessionName = async (lanes?: string) => {
      let pool: Pool | undefined;
      const app = await startService(
        widgets(async (context) => {
          pool = context.pool as Pool;
          return {};
        }),
        { env: env(lanes ? { EVENT_LANES: lanes } : {}), logger },
      );
      try {
        return (await pool!.query<{ name: string }>(`SELECT current_setting('application_name') AS name`)).rows[0]!.name;
      } finally {
        await app.close();
      }
    };
    expect(await sessionName('test')).toBe('widgets-test');
    expect(await sessionName('live')).toBe('widgets');
    expect(await sessionName()).toBe('widgets');
  });
});

describe('closing', () => {
  it('when the service closes while an event is being handled, then readiness turns 503 first, the event commits, and owned things stop after the consumer and before Postgres and NATS close', async () => {
    const handling = deferred();
    const gate = deferred();
    const log: string[] = [];
    let context!: ServiceContext<Config>;
    const app = await startService(
      widgets(async (ctx) => {
        context = ctx;
        await ctx.consume(consumerSpec, async (event, db) => {
          handling.resolve();
          await gate.promise;
          await db.query('INSERT INTO widgets.widgets (event_id, plan_id) VALUES ($1, $2)', [event.id, event.data.planId]);
          log.push('handler returned');
        });
        ctx.own('recorder', {
          async stop() {
            const { rows } = await ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM widgets.widgets');
            log.push(`owned stopped with ${rows[0]!.n} widget(s) committed, nats ${ctx.nc.isClosed() ? 'closed' : 'open'}`);
          },
        });
        return {};
      }),
      { env: env(), logger },
    );
    expect(app.shutdownSteps.map((step) => step.name)).toEqual(['readiness', 'consumer widget-maker', 'recorder', 'outbox relay', 'event tables retention', 'nats', 'postgres', 'health']);

    const event: EventEnvelope<typeof type> = { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: { planId: 'plan_in_flight', active: true } };
    await jetstream(infra.nc).publish(infra.ns.subject(type), JSON.stringify(event), { msgID: event.id });
    await handling.promise;

    const closing = app.close();
    await until(async () => ((await readyz(app.ports.health)).status === 503 ? true : undefined), 'readiness to turn 503');
    expect(log).toEqual([]);
    gate.resolve();
    await closing;

    expect(log).toEqual(['handler returned', 'owned stopped with 1 widget(s) committed, nats open']);
    expect((context.pool as Pool).ended).toBe(true);
    expect((context.nc as NatsConnection).isClosed()).toBe(true);
    expect((await readyz(app.ports.health)).status).toBe(0);
    const { rows } = await infra.pool.query('SELECT consumer FROM widgets.processed_events WHERE event_id = $1', [event.id]);
    expect(rows).toEqual([{ consumer: 'widget-maker' }]);
  });
});

describe('a start that fails', () => {
  it('when start throws after wiring a consumer and an owned loop, then the error surfaces and everything opened is closed', async () => {
    const stopped: string[] = [];
    let context!: ServiceContext<Config>;
    const failing = widgets(async (ctx) => {
      context = ctx;
      await ctx.consume(consumerSpec, async () => {});
      ctx.own('loop', { stop: () => stopped.push('loop') });
      throw new Error('wiring failed: no supplier configured');
    });
    await expect(startService(failing, { env: env(), logger })).rejects.toThrow('wiring failed: no supplier configured');
    expect(stopped).toEqual(['loop']);
    expect((context.pool as Pool).ended).toBe(true);
    await until(() => ((context.nc as NatsConnection).isClosed() ? true : undefined), 'the NATS connection to close');
  });

  it('when the gRPC port is taken, then the start fails and the consumers, owned loops and connections it opened are closed', async () => {
    const taken: Server = await new Promise((resolve) => {
      const server = createServer().listen(0, '0.0.0.0', () => resolve(server));
    });
    const port = (taken.address() as { port: number }).port;
    const stopped: string[] = [];
    let context!: ServiceContext<Config>;
    const app = widgets(async (ctx) => {
      context = ctx;
      ctx.own('loop', { stop: () => stopped.push('loop') });
      const handlers = {} as Parameters<typeof grpcBinding<(typeof catalogV1.CatalogService)['method']>>[1];
      return { grpc: [grpcBinding(catalogV1.CatalogService, handlers)] };
    });
    try {
      await expect(startService(app, { env: env({ GRPC_PORT: String(port) }), logger })).rejects.toThrow();
      expect(stopped).toEqual(['loop']);
      expect((context.pool as Pool).ended).toBe(true);
      await until(() => ((context.nc as NatsConnection).isClosed() ? true : undefined), 'the NATS connection to close');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('when the environment is invalid, then a ConfigError names the variable and start is never called', async () => {
    let started = false;
    const app = widgets(async () => {
      started = true;
      return {};
    });
    await expect(startService(app, { env: env({ PLATFORM_NAMESPACE: 'Not-Valid', GRPC_PORT: 'http' }), logger })).rejects.toSatisfy(
      (error: unknown) => error instanceof ConfigError && /PLATFORM_NAMESPACE/.test(error.message) && /GRPC_PORT/.test(error.message),
    );
    expect(started).toBe(false);
  });
});
