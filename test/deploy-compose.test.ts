// Protects docker-compose.yml from drifting away from the services and from the Kubernetes manifests, offline, without Docker.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'yaml';
import { root, type Json, readText, serviceNames, onPath, type Shape, value, mapOf, stringMap, unknownKeys, deployments, containersOf } from './support/deployFiles.js';

interface ComposeService {
  image?: string;
  build?: { context?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
}

const composeText = readText('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> } & Json;

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

  it('when a folder exists in services/, then Compose builds it with SERVICE set and waits for healthy infrastructure', () => {
    for (const name of serviceNames()) {
      const service = compose.services[name];
      expect(service, name).toBeDefined();
      expect(service!.build?.args?.SERVICE, name).toBe(name);
      expect(service!.environment?.OTEL_SERVICE_NAME, name).toBe(name);
      for (const dependency of ['postgres', 'redis', 'nats']) {
        expect(service!.depends_on?.[dependency]?.condition, `${name} → ${dependency}`).toBe('service_healthy');
      }
    }
  });

  it('when a service has a healthcheck, then it asks /readyz on a port the service listens on', () => {
    for (const name of serviceNames()) {
      const service = compose.services[name]!;
      const env = service.environment ?? {};
      const ports = [env.PORT, env.ADMIN_PORT, env.HEALTH_PORT].filter((port) => port !== undefined);
      const test = (service.healthcheck?.test ?? []).join(' ');
      expect(ports.some((port) => test.includes(`127.0.0.1:${port}/readyz`)), `${name}: ${test}`).toBe(true);
    }
  });

  it('when a Deployment sets a variable, then the Compose service sets it too, with the same literal value', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata!.name!;
      const env = compose.services[name]?.environment ?? {};
      for (const entry of containersOf(deployment)[0]?.env ?? []) {
        if (entry.name === 'SERVICE') continue; // the build arg sets it
        expect(env, `${name} ${entry.name}`).toHaveProperty(entry.name);
        if (entry.value !== undefined) expect(env[entry.name], `${name} ${entry.name}`).toBe(entry.value);
      }
    }
  });

  it('when the stack starts, then infrastructure is the pinned one, JetStream is on and the gateway and Mailpit are reachable', () => {
    const { postgres, redis, nats, mailpit, gateway, mailer } = compose.services;
    expect(postgres?.image).toBe('postgres:16');
    expect(redis?.image).toBe('redis:7');
    expect(nats?.image).toMatch(/^nats:2\.10(-|$)/);
    expect(nats?.command).toContain('-js');
    expect(mailpit?.image).toMatch(/^axllent\/mailpit:/);
    expect(gateway?.ports).toEqual(expect.arrayContaining(['8080:8080', '8081:8081']));
    expect(mailer?.environment?.SMTP_URL).toBe('smtp://mailpit:1025');
    for (const service of Object.values(compose.services)) expect(service.healthcheck?.test).toBeDefined();
  });

  it('when partners and mailer share encrypted data, then Compose gives them the same key', () => {
    expect(compose.services.partners?.environment?.DATA_ENCRYPTION_KEY).toBeDefined();
    expect(compose.services.mailer?.environment?.DATA_ENCRYPTION_KEY).toBe(compose.services.partners?.environment?.DATA_ENCRYPTION_KEY);
  });

  it.skipIf(!onPath('docker-compose'))('when docker-compose validates the file, then it accepts it', () => {
    expect(() => execFileSync('docker-compose', ['-f', join(root, 'docker-compose.yml'), 'config', '-q'], { stdio: 'pipe', timeout: 30_000 })).not.toThrow();
  });
});

// ---------------------------------------------------------------------------
