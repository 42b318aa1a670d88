// Protects boot-time configuration: a bad environment stops the boot naming every bad variable, durations parse as documented, and development secrets never fill in for production.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { commonEnv, ConfigError, devSecret, durationMs, loadConfig, natsServerList, varDir, withDevSecrets } from '@esim/config';
import { afterAll, describe, expect, it } from 'vitest';

const schema = z.object({
  NODE_ENV: commonEnv.NODE_ENV,
  DATABASE_URL: commonEnv.DATABASE_URL,
  PLATFORM_NAMESPACE: commonEnv.PLATFORM_NAMESPACE,
  CURRENCY: commonEnv.CURRENCY,
  GRPC_PORT: commonEnv.port(50051),
  JWT_SECRET: z.string().min(32),
});

describe('loadConfig', () => {
  it('when every variable is valid or defaulted, then the parsed config has the values and defaults', () => {
    const config = loadConfig(schema, { JWT_SECRET: 'j'.repeat(32), GRPC_PORT: '0' });
    expect(config).toEqual({
      NODE_ENV: 'development',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/esim',
      PLATFORM_NAMESPACE: 'esim',
      CURRENCY: 'USD',
      GRPC_PORT: 0,
      JWT_SECRET: 'j'.repeat(32),
    });
  });

  it('when several variables are bad or missing, then one ConfigError names each of them and no good one', () => {
    const env = { DATABASE_URL: 'not a url', PLATFORM_NAMESPACE: 'Has-Caps', CURRENCY: 'usd', GRPC_PORT: '70000', NODE_ENV: 'production' };
    let thrown: unknown;
    try {
      loadConfig(schema, env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as ConfigError).message;
    const named = message
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(':')[0]);
    expect(named.sort()).toEqual(['CURRENCY', 'DATABASE_URL', 'GRPC_PORT', 'JWT_SECRET', 'PLATFORM_NAMESPACE']);
    expect(message).toMatch(/^\s+PLATFORM_NAMESPACE: must be lower-case letters/m);
  });
});

describe('durationMs', () => {
  const valid: Array<[string, number]> = [
    ['250ms', 250],
    ['10s', 10_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1500', 1_500],
    [' 5s ', 5_000],
    ['0', 0],
  ];
  for (const [text, ms] of valid) {
    it(`when the duration is "${text}", then it is ${ms} ms`, () => {
      expect(durationMs(text)).toBe(ms);
    });
  }

  for (const text of ['', 'abc', '1.5s', '-1s', '10 s', '5w', 's', '1e3']) {
    it(`when the duration is "${text}", then it is not a duration`, () => {
      expect(durationMs(text)).toBeUndefined();
    });
  }
});

describe('development secrets', () => {
  const name = `TEST_SECRET_${randomBytes(4).toString('hex').toUpperCase()}`;
  const file = join(varDir, 'secrets', name.toLowerCase());
  afterAll(() => rmSync(file, { force: true }));

  it('when NODE_ENV is production, then a missing secret stays missing, is never generated, and the config parse names it', () => {
    let generated = 0;
    const env = withDevSecrets({ NODE_ENV: 'production' }, { JWT_SECRET: () => `${++generated}`.repeat(32) });
    expect(env.JWT_SECRET).toBeUndefined();
    expect(generated).toBe(0);
    expect(() => loadConfig(schema, env)).toThrow(/JWT_SECRET/);
  });

  it('when NODE_ENV is not production, then a missing secret is generated once, kept under var/secrets, and the same on every later start', () => {
    const first = withDevSecrets({ NODE_ENV: 'development' }, { [name]: () => 'first-value' });
    const second = withDevSecrets({ NODE_ENV: 'test' }, { [name]: () => 'second-value' });
    expect(first[name]).toBe('first-value');
    expect(second[name]).toBe('first-value');
    expect(existsSync(file)).toBe(true);
    expect(devSecret(name.toLowerCase(), () => 'third-value')).toBe('first-value');
  });

  it('when a secret is set in the environment, then it wins over the development secret', () => {
    const env = withDevSecrets({ NODE_ENV: 'development', [name]: 'from-env' }, { [name]: () => 'generated' });
    expect(env[name]).toBe('from-env');
  });
});

describe('cluster endpoints (contract §2)', () => {
  const cluster = z.object({ NATS_URL: commonEnv.NATS_URL, REDIS_CLUSTER_NODES: commonEnv.REDIS_CLUSTER_NODES });

  it('when NATS_URL lists the servers of one cluster, then it is accepted and split into one entry per server', () => {
    const config = loadConfig(cluster, { NATS_URL: 'nats://a:4222, nats://user:pw@b:4222,c:4223' });
    expect(natsServerList(config.NATS_URL)).toEqual(['nats://a:4222', 'nats://user:pw@b:4222', 'c:4223']);
    expect(natsServerList(loadConfig(cluster, {}).NATS_URL)).toEqual(['nats://127.0.0.1:4222']);
  });

  it('when NATS_URL has an empty entry or a foreign scheme, then the boot stops naming NATS_URL', () => {
    expect(() => loadConfig(cluster, { NATS_URL: 'nats://a:4222,,nats://b:4222' })).toThrow(/NATS_URL: must be a comma-separated list/);
    expect(() => loadConfig(cluster, { NATS_URL: 'http://a:4222' })).toThrow(/NATS_URL/);
  });

  it('when REDIS_CLUSTER_NODES lists seed nodes, then they parse to host and port; empty or unset means no cluster', () => {
    expect(loadConfig(cluster, { REDIS_CLUSTER_NODES: 'redis-0:6379, 10.0.0.2:7001' }).REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-0', port: 6379 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    expect(loadConfig(cluster, { REDIS_CLUSTER_NODES: '' }).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(loadConfig(cluster, {}).REDIS_CLUSTER_NODES).toBeUndefined();
  });

  it('when REDIS_CLUSTER_NODES is a URL, lacks a port or has a port out of range, then the boot stops naming it', () => {
    for (const bad of ['redis://a:6379', 'a', 'a:6379,b', 'a:70000']) {
      expect(() => loadConfig(cluster, { REDIS_CLUSTER_NODES: bad }), bad).toThrow(/REDIS_CLUSTER_NODES: must be host:port/);
    }
  });
});
