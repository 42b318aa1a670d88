// Protects docker-compose.yml from drifting away from the service list and the Kubernetes manifests, and its health check from lying, offline, without Docker.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { addressEnv, constantCase, portEnv, readinessPort, services as serviceList, testModeServices, testReplicaName } from '../scripts/launcher/services.js';
import { metricsPort, secretKeysOf } from '../scripts/deploy/settings.js';
import { usesGrpc } from '../scripts/deploy/calls.js';
import { root, type Json, readText, onPath, type Shape, value, mapOf, stringMap, unknownKeys, deployments, containersOf, configMap } from './support/deployFiles.js';

interface ComposeService {
  image?: string;
  cpus?: number | string;
  profiles?: string[];
  volumes?: string[];
  build?: { context?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
}

const composeText = readText('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> } & Json;
const infrastructure = { postgres: 'postgres', redis: 'redis', nats: 'nats', smtp: 'mailpit' } as const;
/** Test mode's replicas, as the launcher names them (scripts/launcher/services.ts). */
const replicaNames = testModeServices.map((service) => testReplicaName(service));
const isReplicated = (name: string) => (testModeServices as readonly string[]).includes(name);

/** `${VAR}` references without a default, and bare `$VAR` ones, which Compose fills from the caller's shell. */
function undefinedComposeVariables(text: string): string[] {
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replaceAll('$$', '');
  const braced = [...withoutComments.matchAll(/\$\{([^}]*)\}/g)]
    .filter((match) => !/^[A-Za-z_][A-Za-z0-9_]*:?-/.test(match[1]!))
    .map((match) => match[0]);
  const bare = [...withoutComments.matchAll(/\$[A-Za-z_][A-Za-z0-9_]*/g)].map((match) => match[0]);
  return [...braced, ...bare];
}

const composeServiceShape: Shape = {
  image: value,
  profiles: value,
  cpus: value,
  build: { context: value, dockerfile: value, args: stringMap },
  command: value,
  restart: value,
  environment: stringMap,
  ports: value,
  volumes: value,
  healthcheck: { test: value, interval: value, timeout: value, retries: value, start_period: value },
  depends_on: mapOf({ condition: value, restart: value, required: value }),
};

describe('docker-compose.yml', () => {
  it('when a variable is referenced without a default, then the check reports it', () => {
    expect(undefinedComposeVariables('a: ${SET:-x}\nb: ${UNSET}\nc: $BARE\nd: $${ESCAPED}\n# e: ${COMMENT}\n')).toEqual([
      '${UNSET}',
      '$BARE',
    ]);
  });

  it('when Compose interpolates, then every variable it references has a default', () => {
    expect(undefinedComposeVariables(composeText)).toEqual([]);
  });

  it('when a service is declared, then it holds only known keys', () => {
    const topLevel = Object.keys(compose).filter((key) => !key.startsWith('x-'));
    expect(topLevel.sort()).toEqual(['services', 'volumes']);
    for (const [name, service] of Object.entries(compose.services)) {
      expect(unknownKeys(service, composeServiceShape, name)).toEqual([]);
    }
  });

  it.each(serviceList.map((entry) => [entry.name, entry] as const))('when %s is in the service list, then Compose runs it from the shared image with its ports and finds every other service', (name, entry) => {
    const service = compose.services[name];
    expect(service, name).toBeDefined();
    expect(service!.image).toBe('${ESIM_IMAGE:-esim-platform:local}');
    expect(service!.environment).toMatchObject({ SERVICE: name, OTEL_SERVICE_NAME: name, ...portEnv(entry.ports), ...addressEnv(Object.fromEntries(serviceList.map((e) => [e.name, e.ports])), (host) => host) });
    for (const key of secretKeysOf(entry)) expect(service!.environment, `${name} ${key}`).toHaveProperty(key);
  });

  it('when the stack is built, then one image is built once (by the first service) and every service runs it', () => {
    const builders = Object.entries(compose.services).filter(([, service]) => service.build);
    expect(builders.map(([name]) => name)).toEqual([serviceList[0]!.name]);
    expect(builders[0]![1].build).toEqual({ context: '.' });
    const images = new Set([...serviceList.map((entry) => entry.name), ...replicaNames].map((name) => compose.services[name]!.image));
    expect([...images]).toEqual(['${ESIM_IMAGE:-esim-platform:local}']);
  });

  it('when run with --profile observability, then a Collector, Jaeger, Prometheus and Grafana join, and services export to the Collector by default', () => {
    const profiled = Object.entries(compose.services).filter(([, service]) => service.profiles?.includes('observability')).map(([name]) => name);
    expect(profiled.sort()).toEqual(['grafana', 'jaeger', 'otel-collector', 'prometheus']);
    for (const entry of serviceList) expect(compose.services[entry.name]!.environment?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT-http://otel-collector:4318}');
    const mounted = profiled.flatMap((name) => compose.services[name]!.volumes ?? []).map((volume) => volume.split(':')[0]!);
    for (const file of mounted) expect(existsSync(join(root, file)), file).toBe(true);
    const prometheus = parse(readText('deploy/observability/prometheus.yml')) as { scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }> };
    // Each test-mode replica is its own job, after its service's.
    const containers = serviceList.flatMap((entry) => (isReplicated(entry.name) ? [entry.name, testReplicaName(entry.name)] : [entry.name]).map((name) => [name, entry] as const));
    expect(prometheus.scrape_configs.map((job) => [job.job_name, job.static_configs[0]!.targets])).toEqual(
      containers.map(([name, entry]) => [name, [`${name}:${entry.ports[metricsPort(entry.ports)]}`]]),
    );
  });

  it.each(serviceList.map((entry) => [entry.name, entry] as const))('when %s starts, then it waits for what it needs to be healthy, and the edge waits for every other service', (name, entry) => {
    const waitsFor = Object.entries(compose.services[name]!.depends_on ?? {});
    expect(waitsFor.every(([, dependency]) => dependency.condition === 'service_healthy'), name).toBe(true);
    // The edge waits for test mode's replicas too: a test account's first call finds them up.
    const others = serviceList.filter((other) => !other.last).flatMap((other) => (isReplicated(other.name) ? [other.name, testReplicaName(other.name)] : [other.name]));
    const expected = [...entry.needs.map((need) => infrastructure[need]), ...(entry.last ? others : [])];
    expect(waitsFor.map(([dependency]) => dependency).sort()).toEqual(expected.sort());
  });

  it.each(serviceList.map((entry) => [entry.name, entry] as const))('when %s runs, then its health check asks /readyz on its readiness port without starting Node', (name, entry) => {
    const test = compose.services[name]!.healthcheck?.test ?? [];
    expect(test).toEqual(['CMD', 'esim-healthcheck', String(readinessPort(entry, entry.ports)), '/readyz']);
  });

  it.each(serviceList.map((entry) => [entry.name, entry] as const))('when %s has public ports, then exactly those are published', (name, entry) => {
    // On the loopback interface unless the operator opts in with PUBLISH_ADDRESS (#24).
    const published = (entry.public ?? []).map((kind) => `\${PUBLISH_ADDRESS:-127.0.0.1}:${entry.ports[kind]}:${entry.ports[kind]}`);
    expect(compose.services[name]!.ports ?? []).toEqual(published);
  });

  it('when any port is published, then it binds 127.0.0.1 unless PUBLISH_ADDRESS opts in', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^\$\{PUBLISH_ADDRESS:-127\.0\.0\.1\}:\d+:\d+$/);
    }
  });

  it('when a secret is not set by the operator, then it has no known value: it is empty (generated on first start into the shared dev-secrets volume)', () => {
    for (const entry of serviceList) {
      for (const key of entry.secrets ?? []) {
        expect(compose.services[entry.name]!.environment![key], `${entry.name} ${key}`).toBe(`\${${key}:-}`);
        expect(compose.services[entry.name]!.volumes, entry.name).toContain('dev-secrets:/app/var/secrets');
      }
    }
    expect(compose.services.gateway!.environment!.WEBHOOK_ALLOW_INSECURE_URLS).toBe('${WEBHOOK_ALLOW_INSECURE_URLS:-false}');
  });

  it('when a Deployment sets a variable, then the Compose service sets it too, with the same literal value', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata!.name!;
      const env = compose.services[name]?.environment ?? {};
      for (const entry of containersOf(deployment)[0]?.env ?? []) {
        if (entry.valueFrom?.fieldRef) continue; // the pod's own names, Kubernetes only
        if (entry.name.startsWith('GRPC_TLS_')) continue; // Compose runs the development PKI (NODE_ENV=development), shared in the grpc-pki volume
        expect(env, `${name} ${entry.name}`).toHaveProperty(entry.name);
        if (entry.value !== undefined) expect(env[entry.name], `${name} ${entry.name}`).toBe(entry.value);
      }
      for (const key of Object.keys(configMap?.data ?? {})) expect(env, `${name} ${key} (esim-config)`).toHaveProperty(key);
    }
  });

  it('when a service serves or calls gRPC, then it shares the one development CA through the grpc-pki volume', () => {
    for (const entry of serviceList) {
      const volumes = (compose.services[entry.name] as { volumes?: string[] }).volumes ?? [];
      if (usesGrpc(entry, serviceList)) expect(volumes, entry.name).toContain('grpc-pki:/app/var/pki');
      else expect(volumes, entry.name).not.toContain('grpc-pki:/app/var/pki');
    }
  });

  it('when the stack starts, then infrastructure is the pinned one, JetStream is on and Mailpit catches mail', () => {
    const { postgres, redis, nats, mailpit } = compose.services;
    expect(postgres?.image).toBe('postgres:16');
    expect(redis?.image).toBe('redis:7');
    expect(nats?.image).toMatch(/^nats:2\.10(-|$)/);
    expect(nats?.command).toContain('-js');
    expect(mailpit?.image).toMatch(/^axllent\/mailpit:/);
    for (const entry of serviceList.filter((e) => e.needs.includes('smtp'))) {
      expect(compose.services[entry.name]?.environment?.SMTP_URL, entry.name).toBe('smtp://mailpit:1025');
    }
    for (const [name, service] of Object.entries(compose.services)) {
      if (!service.profiles) expect(service.healthcheck?.test, name).toBeDefined();
    }
  });

  it('when several services read the same secret, then Compose gives them the same value', () => {
    const values = new Map<string, Set<string>>();
    for (const entry of serviceList) {
      for (const key of entry.secrets ?? []) values.set(key, (values.get(key) ?? new Set()).add(compose.services[entry.name]!.environment![key]!));
    }
    for (const [key, seen] of values) expect(seen.size, key).toBe(1);
  });

  it.skipIf(!onPath('docker-compose'))('when docker-compose validates the file, then it accepts it', () => {
    expect(() => execFileSync('docker-compose', ['-f', join(root, 'docker-compose.yml'), 'config', '-q'], { stdio: 'pipe', timeout: 30_000 })).not.toThrow();
  });
});

describe("docker-compose.yml, test mode's own capacity (contract §14)", () => {
  const replicaAddress = (service: string) => `${testReplicaName(service)}:${serviceList.find((entry) => entry.name === service)!.ports.grpc}`;
  const replicaAddresses = Object.fromEntries(testModeServices.map((target) => [`${constantCase(target)}_ADDR`, replicaAddress(target)]));

  it.each(testModeServices.map((service) => [service] as const))(
    'when %s is replicated, then its -test container runs the same image, secrets and settings on the test lane alone, calling the replicas, capped below one CPU and publishing nothing',
    (service) => {
      const live = compose.services[service]!;
      const replica = compose.services[testReplicaName(service)];
      expect(replica, testReplicaName(service)).toBeDefined();
      expect(live.environment?.EVENT_LANES).toBe('live');
      expect(replica!.environment).toEqual({ ...live.environment, EVENT_LANES: 'test', ...replicaAddresses });
      expect(replica!.image).toBe(live.image);
      expect(replica!.build).toBeUndefined();
      expect(replica!.volumes).toEqual(live.volumes);
      expect(replica!.healthcheck).toEqual(live.healthcheck);
      expect(replica!.depends_on).toEqual(live.depends_on);
      expect(replica!.ports ?? []).toEqual([]);
      expect(Number(replica!.cpus)).toBeGreaterThan(0);
      expect(Number(replica!.cpus)).toBeLessThan(1);
      expect(live.cpus, `${service} itself is not capped`).toBeUndefined();
    },
  );

  it('when the gateway serves a test account, then it names the replicas of wallet, orders and webhooks, and nothing else names a replica but the replicas', () => {
    const gateway = compose.services.gateway!.environment!;
    expect(Object.fromEntries(Object.entries(gateway).filter(([key]) => key.endsWith('_TEST_ADDR')))).toEqual({
      WALLET_TEST_ADDR: replicaAddress('wallet'),
      ORDERS_TEST_ADDR: replicaAddress('orders'),
      WEBHOOKS_TEST_ADDR: replicaAddress('webhooks'),
    });
    for (const entry of serviceList.filter((e) => !isReplicated(e.name))) expect(compose.services[entry.name]!.environment?.EVENT_LANES, entry.name).toBeUndefined();
    for (const [name, service] of Object.entries(compose.services)) {
      if (replicaNames.includes(name) || name === 'gateway') continue;
      const named = Object.values(service.environment ?? {}).filter((value) => replicaNames.some((replica) => String(value).startsWith(`${replica}:`)));
      expect(named, name).toEqual([]);
    }
  });
});

describe('the container health check (deploy/healthcheck.sh)', () => {
  const run = promisify(execFile);
  let server: Server;
  let port: number;
  let status = 200;

  beforeAll(async () => {
    server = createServer((request, response) => response.writeHead(request.url === '/readyz' ? status : 404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const check = (target: number) =>
    run('bash', [join(root, 'deploy/healthcheck.sh'), String(target), '/readyz'], { timeout: 10_000 }).then(
      () => 0,
      (error: { code?: number }) => error.code ?? -1,
    );

  it('when /readyz answers 200, then the check passes', async () => {
    status = 200;
    expect(await check(port)).toBe(0);
  });

  it('when /readyz answers 503, then the check fails', async () => {
    status = 503;
    expect(await check(port)).toBe(1);
  });

  it('when nothing listens on the port, then the check fails', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unused = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await check(unused)).toBe(1);
  });
});
