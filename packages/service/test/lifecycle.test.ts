// Protects how a service starts and stops in a cluster: MIGRATE=only migrates and starts nothing, MIGRATE=off waits for the migration job instead of serving an old schema, and a stop requested during the start (SIGTERM while booting) stops what had started and exits cleanly.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import type { NatsConnection } from '@esim/events';
import type { Pool } from '@esim/postgres';
import { BootAborted, defineService, serviceEnv, startService, type ServiceContext, type Started } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestInfra, natsUrl, until, type TestInfra } from '../../events/test/support/infra.js';

const configSchema = z.object({ ...serviceEnv(0), DATABASE_URL: commonEnv.DATABASE_URL });
type Config = z.output<typeof configSchema>;
const migrationsDir = fileURLToPath(new URL('./fixtures/migrations', import.meta.url));
const logger = createLogger('lifecycle', process.env.TEST_LOG ?? 'silent');

let infra: TestInfra;
beforeAll(async () => {
  infra = await createTestInfra('lifecycle');
});
afterAll(() => infra?.cleanup());

function widgets(schema: string, start: (context: ServiceContext<Config>) => Promise<Started>) {
  return defineService({ name: 'widgets', config: (env) => loadConfig(configSchema, env), postgres: { schema, migrationsDir }, publishes: ['CATALOG'], start });
}
const env = (extra: Record<string, string> = {}) => ({ NODE_ENV: 'test', DATABASE_URL: infra.databaseUrl, NATS_URL: natsUrl, PLATFORM_NAMESPACE: infra.namespace, HEALTH_PORT: '0', ...extra });
const tablesOf = async (schema: string) =>
  (await infra.pool.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema])).rows.map((row) => row.table_name);

describe('MIGRATE', () => {
  it('when MIGRATE=only, then the schema is migrated and nothing else starts: no NATS connection, no start, no listener', async () => {
    let started = false;
    const running = await startService(
      widgets('only_mode', async () => {
        started = true;
        return {};
      }),
      // An unreachable NATS proves the migration run never dials it.
      { env: env({ MIGRATE: 'only', NATS_URL: 'nats://127.0.0.1:1' }), logger },
    );
    expect(running.mode).toBe('migrated');
    expect(running.shutdownSteps).toEqual([]);
    expect(started).toBe(false);
    expect(await tablesOf('only_mode')).toEqual(['outbox', 'pgmigrations', 'pgmigrations_events', 'processed_events', 'widgets']);
  });

  it('when MIGRATE=off and the migrations are not applied yet, then the service waits, and starts once a migration run has applied them', async () => {
    let started = false;
    const definition = widgets('off_mode', async () => {
      started = true;
      return {};
    });
    let serving: Awaited<ReturnType<typeof startService<Config>>> | undefined;
    const lines: string[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const waiting = startService(definition, { env: env({ MIGRATE: 'off' }), logger: recording }).then((running) => (serving = running));
    const said = await until(() => lines.find((line) => line.includes('waiting for the migration job')), 'the service to say what it waits for');
    expect(JSON.parse(said)).toMatchObject({ schema: 'off_mode', pending: ['1700000000000_event_tables', '1764100000000_processed_events_age', '1700000000100_widgets'] });
    expect(serving, 'still waiting for the migration job').toBeUndefined();
    expect(started).toBe(false);
    expect(await tablesOf('off_mode'), 'MIGRATE=off creates nothing').toEqual([]);

    await startService(definition, { env: env({ MIGRATE: 'only' }), logger });
    const running = await waiting;
    try {
      expect(running.mode).toBe('serving');
      expect(started).toBe(true);
    } finally {
      await running.close();
    }
  });
});

describe('a stop requested during the start', () => {
  it('when the signal aborts while start is wiring, then startService rejects with BootAborted and closes the consumers, owned things, NATS and Postgres it opened', async () => {
    const abort = new AbortController();
    const stopped: string[] = [];
    let context!: ServiceContext<Config>;
    const booting = startService(
      widgets('abort_mode', async (ctx) => {
        context = ctx;
        await ctx.consume({ durable: 'aborted-maker', type: 'catalog.plan.changed', ackWaitMs: 5_000, maxDeliver: 3, retryDelayMs: () => 100 }, async () => {});
        ctx.own('loop', { stop: () => stopped.push('loop') });
        abort.abort(new BootAborted('SIGTERM during start'));
        await new Promise(() => {}); // a start that would never finish
        return {};
      }),
      { env: env(), logger, signal: abort.signal },
    );
    await expect(booting).rejects.toBeInstanceOf(BootAborted);
    expect(stopped).toEqual(['loop']);
    expect((context.pool as Pool).ended).toBe(true);
    await until(() => ((context.nc as NatsConnection).isClosed() ? true : undefined), 'the NATS connection to close');
  });

  it('when the signal aborts while MIGRATE=off waits for the migration job, then the wait ends at once', async () => {
    const abort = new AbortController();
    const waiting = startService(widgets('never_migrated', async () => ({})), { env: env({ MIGRATE: 'off' }), logger, signal: abort.signal });
    setTimeout(() => abort.abort(), 100);
    await expect(waiting).rejects.toBeInstanceOf(BootAborted);
  });

  it('when a real process gets SIGTERM while its start hangs, then it stops what started and exits 0 instead of waiting for SIGKILL', async () => {
    const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', fileURLToPath(new URL('./fixtures/hangingService.ts', import.meta.url))], {
      env: { ...process.env, ...env(), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await until(() => (output.includes('start entered') ? true : undefined), 'the child to be inside start', 30_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const messages = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    // pino and the fixture's own writes reach the pipe through different buffers: their order is not the point.
    expect(messages.slice(messages.indexOf('start entered') + 1).sort()).toEqual(['owned thing stopped', 'signal during start; stopping what has started', 'stopped']);
  });
});
