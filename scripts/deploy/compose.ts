/** docker-compose.yml from the service list: one container per workload (a service, or test mode's replica of it) beside the infrastructure it needs. */
import { addressEnv, portEnv, readinessPort, services as serviceList, type Dependency, type ServiceEntry } from '../launcher/services.js';
import { usesGrpc } from './calls.js';
import { testReplicaCpu } from './resources.js';
import { composeHealthcheck, composeImage, generatedHeader, kebab, scalar, secretDoc, secretKeysOf, sharedSettings } from './settings.js';
import { workloadEnv, workloadsOf, type Workload } from './workloads.js';

/** Infrastructure containers, pinned, each with a health check its dependants wait on. */
const infrastructure = `  postgres:
    image: postgres:16
    environment:
      POSTGRES_USER: postgres
      POSTGRES_PASSWORD: postgres
      POSTGRES_DB: esim
    volumes:
      - postgres-data:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD", "pg_isready", "-U", "postgres", "-d", "esim"]
      interval: 2s
      timeout: 3s
      retries: 15

  redis:
    image: redis:7
    healthcheck:
      test: ["CMD", "redis-cli", "ping"]
      interval: 2s
      timeout: 3s
      retries: 15

  nats:
    # The alpine variant of the same release: the plain image has no shell or
    # HTTP client to run a healthcheck with.
    image: nats:2.10-alpine
    command: ["-js", "-sd", "/data", "-m", "8222"]
    volumes:
      - nats-data:/data
    healthcheck:
      test: ["CMD", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8222/healthz?js-enabled-only=true"]
      interval: 2s
      timeout: 3s
      retries: 15

  mailpit:
    image: axllent/mailpit:v1.27
    ports:
      - "\${PUBLISH_ADDRESS:-127.0.0.1}:8025:8025"
    healthcheck:
      test: ["CMD", "/mailpit", "readyz"]
      interval: 2s
      timeout: 3s
      retries: 15
`;

/** Traces: services → Collector → Jaeger; metrics: Prometheus scrapes each service; Grafana shows both. Profile `observability` only. */
const observability = `  otel-collector:
    image: otel/opentelemetry-collector-contrib:0.114.0
    profiles: ["observability"]
    command: ["--config=/etc/otelcol/config.yaml"]
    volumes:
      - ./deploy/observability/otel-collector.yaml:/etc/otelcol/config.yaml:ro
    depends_on:
      jaeger:
        condition: service_started

  jaeger:
    image: jaegertracing/all-in-one:1.62.0
    profiles: ["observability"]
    environment:
      COLLECTOR_OTLP_ENABLED: "true"
    ports:
      - "\${PUBLISH_ADDRESS:-127.0.0.1}:16686:16686"

  prometheus:
    image: prom/prometheus:v2.55.1
    profiles: ["observability"]
    command: ["--config.file=/etc/prometheus/prometheus.yml"]
    volumes:
      - ./deploy/observability/prometheus.yml:/etc/prometheus/prometheus.yml:ro
      - ./deploy/observability/alerts.yml:/etc/prometheus/alerts.yml:ro
    ports:
      - "\${PUBLISH_ADDRESS:-127.0.0.1}:9090:9090"

  grafana:
    image: grafana/grafana:11.3.0
    profiles: ["observability"]
    environment:
      GF_AUTH_ANONYMOUS_ENABLED: "true"
      GF_AUTH_ANONYMOUS_ORG_ROLE: Admin
      GF_AUTH_DISABLE_LOGIN_FORM: "true"
    volumes:
      - ./deploy/observability/grafana/provisioning:/etc/grafana/provisioning:ro
      - ./deploy/observability/grafana/dashboards:/var/lib/grafana/dashboards:ro
    ports:
      - "\${PUBLISH_ADDRESS:-127.0.0.1}:3000:3000"
    depends_on:
      prometheus:
        condition: service_started
      jaeger:
        condition: service_started
`;

/** The container each need waits for. */
const containerOf: Record<Dependency, string> = { postgres: 'postgres', redis: 'redis', nats: 'nats', smtp: 'mailpit' };

/** Compose's DNS name of a service is its name, and its ports are the list's defaults. */
const addresses = (services: readonly ServiceEntry[]) => addressEnv(Object.fromEntries(services.map((entry) => [entry.name, entry.ports])), (name) => name);

function mapping(values: Record<string, string>, spaces: number): string {
  return Object.entries(values)
    .map(([key, value]) => `${' '.repeat(spaces)}${key}: ${scalar(value)}`)
    .join('\n');
}

/**
 * One image for every service: the first entry builds it (once), the others
 * run the same tag (Compose does not pull an image another service builds).
 * SERVICE picks the service at run time. A test-mode replica runs its
 * service's code with its lane and the replicas' addresses (workloads.ts),
 * publishes nothing, and is capped in CPU as in Kubernetes (resources.ts).
 */
function serviceBlock(workload: Workload, services: readonly ServiceEntry[]): string {
  const { entry } = workload;
  const replica = workload.lane === 'test';
  const extra = workloadEnv(workload, services);
  const lines = [
    ...(replica ? [`  # ${entry.name} for test accounts only (contract §14): the test lane, on its own capped CPU.`] : []),
    `  ${workload.name}:`,
    `    image: ${scalar(composeImage)}`,
    ...(entry === services[0] && !replica ? ['    build:', '      context: .'] : []),
    '    restart: unless-stopped',
    ...(replica ? [`    cpus: ${testReplicaCpu.limitMillicores / 1000}`] : []),
    '    environment:',
    '      <<: *service-env',
    `      SERVICE: ${entry.name}`,
    `      OTEL_SERVICE_NAME: ${entry.name}`,
    mapping(portEnv(entry.ports), 6),
    ...(Object.keys(extra).length > 0 ? [mapping(extra, 6)] : []),
  ];
  for (const key of secretKeysOf(entry)) {
    const anchored = key !== 'DATABASE_URL' && key !== 'SMTP_URL';
    lines.push(`      ${key}: ${anchored ? `*${kebab(key)}` : scalar(secretDoc(key).composeDefault)}`);
  }
  // One development CA for every container: the first to start issues it into the shared volume (mutual TLS of gRPC).
  // Secrets left empty are generated once by the first service to start, into a shared volume, so every reader agrees (#24).
  const volumes = [
    ...(usesGrpc(entry, services) ? ['grpc-pki:/app/var/pki'] : []),
    ...((entry.secrets ?? []).length > 0 ? ['dev-secrets:/app/var/secrets'] : []),
  ];
  if (volumes.length > 0) lines.push('    volumes:', ...volumes.map((volume) => `      - ${volume}`));
  const published = (replica ? [] : (entry.public ?? [])).map((kind) => entry.ports[kind]).filter((port) => port !== undefined);
  if (published.length > 0) lines.push('    ports:', ...published.map((port) => `      - ${publish(port)}`));
  lines.push('    healthcheck:', '      <<: *healthcheck', `      test: ["CMD", "${composeHealthcheck}", "${readinessPort(entry, entry.ports)}", "/readyz"]`);
  const waitsFor = [
    ...entry.needs.map((need) => containerOf[need]),
    ...(entry.last ? workloadsOf(services).filter((other) => !other.entry.last).map((other) => other.name) : []),
  ];
  if (waitsFor.length > 0) {
    lines.push('    depends_on:');
    for (const name of waitsFor) lines.push(`      ${name}:`, '        condition: service_healthy');
  }
  return lines.join('\n');
}

/**
 * A published port listens on the loopback interface unless the operator opts
 * in with PUBLISH_ADDRESS (e.g. 0.0.0.0), so a copy started as documented is
 * not open to the network (#24).
 */
export const publish = (port: number) => `"\${PUBLISH_ADDRESS:-127.0.0.1}:${port}:${port}"`;

function devSecrets(services: readonly ServiceEntry[]): string {
  const keys = [...new Set(services.flatMap((entry) => entry.secrets ?? []))];
  if (keys.length === 0) return '';
  return [
    '# No secret has a known default (#24). Set them in the environment (or an .env',
    '# file) as real deployments do from a secret store (Kubernetes: the esim-secrets',
    '# Secret); left empty, each is generated on first start by the first service',
    '# that reads it, into the dev-secrets volume every reader shares, so',
    '# DATA_ENCRYPTION_KEY matches wherever it is read. Read the admin token with',
    '# `docker compose exec gateway cat /app/var/secrets/admin_token`.',
    'x-dev-secrets:',
    ...keys.map((key) => `  ${kebab(key)}: &${kebab(key)} ${scalar(secretDoc(key).composeDefault)}`),
    '',
    '',
  ].join('\n');
}

export function composeFile(services: readonly ServiceEntry[] = serviceList): string {
  const replicas = workloadsOf(services).filter((workload) => workload.lane === 'test').map((workload) => workload.name);
  return `${generatedHeader}
#
# The whole platform in containers for local use: \`docker compose up --build\`.
# Public ports of the service list are published on 127.0.0.1 only (set
# PUBLISH_ADDRESS=0.0.0.0 to open them to the network); e-mail is
# caught by Mailpit at http://localhost:8025. With
# \`docker compose --profile observability up --build\`, an OpenTelemetry
# Collector, Jaeger (traces, http://localhost:16686), Prometheus (metrics and
# alert rules, http://localhost:9090) and Grafana (the platform dashboard,
# http://localhost:3000) run beside it.
#
# Each service runs its own migrations at start (MIGRATE=on-start) under a
# Postgres advisory lock, so replicas may start together.
#
# Test mode has capacity of its own, as under \`npm start\`:
# ${replicas.join(', ')} run their service's code for
# test accounts only (EVENT_LANES=test), each capped at ${testReplicaCpu.limitMillicores / 1000} CPU; the gateway
# sends a test account's calls there (*_TEST_ADDR) and the services' own
# containers serve live only.

x-service-env: &service-env
${mapping(sharedSettings.compose, 2)}
  # How services find each other: <NAME>_ADDR for gRPC APIs, URLs for the rest.
${mapping(addresses(services), 2)}

${devSecrets(services)}# Services answer /readyz once migrated and connected; the check is a bash
# one-liner (no Node process per check), installed in the image.
x-healthcheck: &healthcheck
  interval: 5s
  timeout: 3s
  retries: 5
  start_period: 60s

services:
${infrastructure}
${workloadsOf(services).map((workload) => serviceBlock(workload, services)).join('\n\n')}

${observability}
volumes:
  postgres-data:
  nats-data:
  # The development gRPC PKI (a CA and one certificate per service), shared so every container trusts the same CA.
  grpc-pki:
  # Secrets generated on first start (those not set in the environment), shared by every service that reads them.
  dev-secrets:
`;
}
